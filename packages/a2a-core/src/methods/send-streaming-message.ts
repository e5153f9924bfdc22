import type { Caller } from "../ports/caller.js";
import type { TaskRecord } from "../ports/task-records.js";
import type { ProtocolVersion } from "../protocol/dialect/protocol-version.js";
import {
  InvalidParamsError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
} from "../protocol/errors.js";
import type { HeaderReader } from "../protocol/header-reader.js";
import type { Message, Task } from "../protocol/schemas/a2a.js";
import { SendStreamingMessageParams, STORE_ID_REQUIRED } from "../protocol/schemas/params.js";
import type { A2ARuntime } from "../runtime/a2a-runtime.js";
import { TASK_EVENT_SEQ } from "../runtime/streams/open-task-stream.js";
import type { RequestTrace } from "../telemetry/handler-telemetry.js";
import type { StreamingMethod, TaskStreamStart } from "./method.js";
import { findNulCharacter } from "./support/find-nul.js";
import { destinationRefusal, INLINE_CONFIG_FIELDS, newPushConfig } from "./support/push-configs.js";
import { reattachCursor } from "./support/reattach-cursor.js";
import { textOfMessage } from "./support/text-of-message.js";

/**
 * SendStreamingMessage (`message/stream`): starts a task and streams it. A retry with a known
 * `messageId` gets its original task back (contract rule 1): the robots are never dispatched twice.
 */
export const sendStreamingMessage: StreamingMethod<typeof SendStreamingMessageParams> = {
  streaming: true,
  params: SendStreamingMessageParams,
  async run(runtime, { params, caller, headers, trace, version }) {
    const { message } = params;
    const requested = params.metadata.storeId;
    // Asked only when the start names no store, so a start that does costs nothing more.
    const storeId = requested ?? (await runtime.executor.defaultEnvironment?.(caller.workspaceId));
    const text = textOfMessage(message);
    // A retry with a known messageId gets its original task back, whatever else it says. Checked first
    // only when the request would be refused otherwise; a valid start asks the store once ("the task for
    // this key, or a new one") and so learns the same.
    const refusal =
      (await startRefusal(runtime, params, storeId, text, caller)) ??
      (await inlinePushRefusal(runtime, params, version));
    if (refusal || storeId === undefined) {
      const existing =
        message.messageId === undefined
          ? undefined
          : await runtime.stores.idempotency.get(caller.workspaceId, message.messageId);
      if (!existing) throw refusal ?? InvalidParamsError.forField("params.metadata.storeId", STORE_ID_REQUIRED);
      return reattachRetry(runtime, existing, text, requested, headers, trace);
    }

    const task = newTask(runtime, message, storeId);
    // A config sent with the start is stored with the task, so its `task` event is the first delivery.
    const inline = params.configuration?.pushNotificationConfig;
    const input = {
      workspaceId: caller.workspaceId,
      task,
      lease: runtime.runner.newLease(),
      createdAt: task.status.timestamp,
      ...(inline ? { pushConfigs: [newPushConfig(inline, { taskId: task.id, version, now: runtime.now() })] } : {}),
    };
    // The one write of a start, inside the request's span so the store's span nests under it. Without a
    // messageId the store always creates: every such start is a new task (contract rule 3).
    const { record, created } = await runtime.telemetry.within(trace.span, () =>
      runtime.stores.idempotency.createOrGet(message.messageId, input),
    );
    // Not created: an earlier or concurrent start with the same key won, so this request is its retry.
    if (!created) return reattachRetry(runtime, record, text, requested, headers, trace);
    runtime.telemetry.taskOf(trace, record.task.id);
    // The stored task's own first message (and its text), not `task`'s: the request's objects can then be
    // collected while the task runs, and a running task holds one copy of its message instead of two.
    const first = record.task.history[0] ?? message;
    runtime.runner.start(record, first, textOfMessage(first), trace);
    return { record, afterSeq: TASK_EVENT_SEQ };
  },
};

/** Why a task start would be refused, or undefined if it may start. */
async function startRefusal(
  runtime: A2ARuntime,
  params: SendStreamingMessageParams,
  storeId: string | undefined,
  text: string,
  caller: Caller,
): Promise<Error | undefined> {
  const { message } = params;
  const nulAt = findNulCharacter(params);
  if (nulAt) return InvalidParamsError.forField(nulAt, "must not contain the character U+0000");
  if (message.role !== "user") {
    return InvalidParamsError.forField("params.message.role", 'a partner task is sent with role "user"');
  }
  if (message.taskId !== undefined) {
    return new UnsupportedOperationError(
      "Continuing an existing task with message.taskId is not supported; start a new task or use SubscribeToTask",
      { field: "params.message.taskId" },
    );
  }
  if (text.length === 0) {
    return InvalidParamsError.forField("params.message.parts", "the message needs at least one non-empty text part");
  }
  if (storeId === undefined) {
    return InvalidParamsError.forField(
      "params.metadata.storeId",
      `${STORE_ID_REQUIRED} (your workspace names no default Environment)`,
    );
  }
  const { executor } = runtime;
  if (executor.hasEnvironment && !(await executor.hasEnvironment(caller.workspaceId, storeId))) {
    return InvalidParamsError.forField("params.metadata.storeId", "no Environment with this storeId in your workspace");
  }
  return undefined;
}

/**
 * Why a start's push config (`configuration.pushNotificationConfig`) is refused: push is off (-32003, so a
 * partner expecting notifications learns at once that none will come), or its destination is refused.
 * A retried start whose messageId names a task ignores the config, as it ignores everything else.
 */
async function inlinePushRefusal(
  runtime: A2ARuntime,
  params: SendStreamingMessageParams,
  version: ProtocolVersion,
): Promise<Error | undefined> {
  const inline = params.configuration?.pushNotificationConfig;
  if (!inline) return undefined;
  if (!runtime.push) {
    return new PushNotificationNotSupportedError(
      "Push notifications are not supported: start the task without a push notification config and follow it " +
        "with SubscribeToTask or GetTask",
      { field: INLINE_CONFIG_FIELDS[version].config },
    );
  }
  return destinationRefusal(runtime.push, inline, INLINE_CONFIG_FIELDS[version]);
}

/**
 * A start whose messageId already names a task: the same request again (its text and storeId) is a retry
 * and reattaches; anything else reused the key by mistake and is refused, so the partner learns it at
 * once instead of following an unrelated task (docs/protocol.md, Idempotency). A retry that names no
 * storeId is matched on its text alone: the default it went to may have changed since.
 */
function reattachRetry(
  runtime: A2ARuntime,
  record: TaskRecord,
  text: string,
  storeId: string | undefined,
  headers: HeaderReader,
  trace: RequestTrace,
): TaskStreamStart {
  runtime.telemetry.taskOf(trace, record.task.id);
  const original = record.task.history[0];
  const sameText = original !== undefined && textOfMessage(original) === text;
  if (!sameText || (storeId !== undefined && record.task.metadata.storeId !== storeId)) {
    throw new InvalidParamsError(
      `Invalid params: params.message.messageId: was used for another task (${record.task.id}) with a different ` +
        "message or storeId; send a new messageId for a new task",
      {
        field: "params.message.messageId",
        taskId: record.task.id,
        issues: [{ field: "params.message.messageId", message: "was used for another task" }],
      },
    );
  }
  return { record, afterSeq: reattachCursor(record, headers) };
}

function newTask(runtime: A2ARuntime, message: Message, storeId: string): Task {
  const id = runtime.generateId();
  const contextId = message.contextId ?? runtime.generateId();
  const timestamp = runtime.now().toISOString();
  return {
    kind: "task",
    id,
    contextId,
    status: { state: "working", timestamp },
    history: [{ ...message, kind: "message", taskId: id, contextId }],
    artifacts: [],
    metadata: { storeId, ...(message.messageId === undefined ? {} : { messageId: message.messageId }) },
  };
}
