import type { TaskRecord } from "../../ports/task-records.js";
import { InvalidParamsError } from "../../protocol/errors.js";
import type { HeaderReader } from "../../protocol/header-reader.js";
import type { TaskMetadata } from "../../protocol/schemas/a2a.js";
import { textOfMessage } from "../../protocol/text-of-message.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";
import type { RequestTrace } from "../../telemetry/handler-telemetry.js";
import type { TaskStreamStart } from "../method.js";
import { reattachCursor } from "./reattach-cursor.js";

/**
 * A start whose messageId already names a task: the same request again is a retry and reattaches;
 * anything else reused the key by mistake and is refused, so the partner learns it at once instead of
 * following an unrelated task (docs/protocol.md, Idempotency). The same request: the same text, and
 * `params.metadata` naming no entry of the task's metadata (those the executor's `prepareStart` added,
 * a storeId in the reference server) with another value. A retry that names none is matched on its text
 * alone: the default it went to (a default Environment) may have changed since.
 *
 * `requested` reads the retry's `params.metadata`; undefined for a message that names its task, whose
 * metadata is not compared.
 */
export function reattachRetry(
  runtime: A2ARuntime,
  record: TaskRecord,
  text: string,
  requested: (() => Readonly<Record<string, unknown>>) | undefined,
  headers: HeaderReader,
  trace: RequestTrace,
): TaskStreamStart {
  runtime.telemetry.taskOf(trace, record.task.id);
  const original = record.task.history[0];
  const sameText = original !== undefined && textOfMessage(original) === text;
  const { metadata } = record.task;
  const entries = startEntries(metadata);
  if (!sameText || (requested !== undefined && contradicts(requested(), metadata, entries))) {
    throw new InvalidParamsError(
      `Invalid params: params.message.messageId: was used for another task (${record.task.id}) with a different ` +
        `${["message", ...entries].join(" or ")}; send a new messageId for a new task`,
      {
        field: "params.message.messageId",
        taskId: record.task.id,
        issues: [{ field: "params.message.messageId", message: "was used for another task" }],
      },
    );
  }
  return { record, afterSeq: reattachCursor(record, headers) };
}

/** The entries a task's metadata was started with besides the handler's own `messageId`. */
function startEntries(metadata: TaskMetadata): string[] {
  return Object.keys(metadata).filter((key) => key !== "messageId");
}

function contradicts(requested: Readonly<Record<string, unknown>>, metadata: TaskMetadata, entries: string[]): boolean {
  return entries.some((key) => requested[key] !== undefined && !sameValue(requested[key], metadata[key]));
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  return (
    typeof a === "object" &&
    a !== null &&
    typeof b === "object" &&
    b !== null &&
    JSON.stringify(a) === JSON.stringify(b)
  );
}
