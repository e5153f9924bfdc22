import type { Caller } from "../../ports/caller.js";
import type { StartContext, StartPreparation } from "../../ports/task-executor.js";
import type { ProtocolVersion } from "../../protocol/dialect/protocol-version.js";
import {
  InvalidParamsError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
} from "../../protocol/errors.js";
import type { HeaderReader } from "../../protocol/header-reader.js";
import type { Message, Task } from "../../protocol/schemas/a2a.js";
import type { SendStreamingMessageParams } from "../../protocol/schemas/params.js";
import type { PushConfigInput } from "../../protocol/schemas/push-config.js";
import { textOfMessage } from "../../protocol/text-of-message.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";
import {
  compactMessage,
  heldValue,
  withCompactFirstMessage,
  withMessageFields,
} from "../../runtime/hub/compact-message.js";
import { TASK_EVENT_SEQ } from "../../runtime/streams/open-task-stream.js";
import type { RequestTrace } from "../../telemetry/handler-telemetry.js";
import type { MessageReply, MethodCall, TaskStreamStart } from "../method.js";
import { continueTask } from "./continue-task.js";
import { findNulCharacter } from "./find-nul.js";
import { FOLLOW_A_TASK } from "./follow-hint.js";
import { idempotencyKey } from "./idempotency-key.js";
import { messageReply } from "./message-reply.js";
import { destinationRefusal, INLINE_CONFIG_FIELDS, newPushConfig } from "./push-configs.js";
import { reattachRetry } from "./reattach-retry.js";

/**
 * The start of a task, shared by SendStreamingMessage and SendMessage: the durable, idempotent create.
 * A retry with a known `messageId` gets its original task back (contract rule 1): the robots are never
 * dispatched twice, whichever of the two methods sent the first attempt or the retry.
 *
 * Not async, on purpose: everything that reads the request's own objects happens here, in the turn
 * that parsed them, and the start goes on with what it took from them (the message and the metadata
 * compacted, its text). A task start at the request bounds parses into ~0.6 MiB of objects; held across the store's
 * round trip they would outlive the young generation, and thousands of starts would grow the heap.
 */
export function startTask(
  runtime: A2ARuntime,
  { params, caller, headers, trace, version }: MethodCall<SendStreamingMessageParams>,
): Promise<TaskStreamStart | MessageReply> {
  const { message } = params;
  const text = textOfMessage(message);
  const continuing = message.taskId !== undefined && runtime.continueTasks;
  const refusal = requestRefusal(params, continuing);
  if (continuing && !refusal) {
    return retryOrContinue(runtime, { ...message, taskId: message.taskId as string }, text, caller, headers, trace);
  }
  const first = compactMessage(message);
  const start: StartRequest = {
    first,
    bulky: first !== message,
    text,
    metadata: heldValue(params.metadata),
    refusal,
    inlinePush: params.configuration?.taskPushNotificationConfig ?? undefined,
    version,
    caller,
    headers,
    trace,
  };
  // An executor that may answer with a message is asked first (this start then keeps its message
  // across the wait: an embedder's choice).
  if (!refusal && runtime.executor.reply) {
    return messageReply(runtime, message, caller).then<TaskStreamStart | MessageReply>(
      (reply) => reply ?? createOrReattach(runtime, start),
    );
  }
  return createOrReattach(runtime, start);
}

/** What a start keeps of its request while it asks the store. */
interface StartRequest {
  /** The message, compacted (see compactMessage). */
  first: Message;
  /** Whether it was worth compacting: then so is the store's copy of it. */
  bulky: boolean;
  /** Its text (textOfMessage). */
  text: string;
  /** Reads the request's `params.metadata` (see heldValue). */
  metadata: () => Readonly<Record<string, unknown>>;
  /** Why the request itself would be refused, if it would. */
  refusal: Error | undefined;
  /** The push config sent with the start (`configuration.pushNotificationConfig`), if any. */
  inlinePush: PushConfigInput | undefined;
  /** The protocol version of the request: a config made with it gets payloads in its shapes. */
  version: ProtocolVersion;
  caller: Caller;
  headers: HeaderReader;
  trace: RequestTrace;
}

async function createOrReattach(runtime: A2ARuntime, start: StartRequest): Promise<TaskStreamStart> {
  const { first, text, caller, headers, trace } = start;
  // A retry with a known messageId gets its original task back, whatever else it says. Checked first
  // only when the request would be refused otherwise; a valid start asks the store once ("the task for
  // this key, or a new one") and so learns the same.
  const prepared = start.refusal ? undefined : await prepareStart(runtime, start);
  const refusal =
    start.refusal ?? prepared?.refusal ?? (await inlinePushRefusal(runtime, start.inlinePush, start.version));
  const key = idempotencyKey(runtime, first);
  if (refusal) {
    const existing = key === undefined ? undefined : await runtime.stores.idempotency.get(caller.workspaceId, key);
    if (!existing) throw refusal;
    return reattachRetry(runtime, existing, text, start.metadata, headers, trace);
  }

  const task = newTask(runtime, first, prepared?.metadata);
  // A config sent with the start is stored with the task, so its `task` event is the first delivery.
  const inline = start.inlinePush;
  const input = {
    workspaceId: caller.workspaceId,
    task,
    lease: runtime.runner.newLease(),
    createdAt: task.status.timestamp,
    ...(inline
      ? { pushConfigs: [newPushConfig(inline, { taskId: task.id, version: start.version, now: runtime.now() })] }
      : {}),
  };
  // The one write of a start, inside the request's span so the store's span nests under it. Without a
  // messageId the store always creates: every such start is a new task (contract rule 3).
  const { record, created } = await runtime.telemetry.within(trace.span, () =>
    runtime.stores.idempotency.createOrGet(key, input),
  );
  // Not created: an earlier or concurrent start with the same key won, so this request is its retry.
  if (!created) return reattachRetry(runtime, record, text, start.metadata, headers, trace);
  runtime.telemetry.taskOf(trace, record.task.id);
  // The task runs on the store's own copy, its first message compacted: the request's objects and the
  // store's full copy can then be collected at once (the stream's first frame is written from `record`).
  const held = start.bulky ? withCompactFirstMessage(record) : record;
  runtime.runner.start(held, held.task.history[0] ?? first, trace);
  return { record, afterSeq: TASK_EVENT_SEQ };
}

/**
 * A message with `message.taskId`: a retry of a start whose messageId already names a task reattaches to
 * it (rule 1, whatever else the retry says); anything else is a follow-up to the task it names.
 */
async function retryOrContinue(
  runtime: A2ARuntime,
  message: Message & { taskId: string },
  text: string,
  caller: Caller,
  headers: HeaderReader,
  trace: RequestTrace,
): Promise<TaskStreamStart> {
  const key = idempotencyKey(runtime, message);
  const started = key === undefined ? undefined : await runtime.stores.idempotency.get(caller.workspaceId, key);
  if (started) return reattachRetry(runtime, started, text, undefined, headers, trace);
  return continueTask(runtime, message, caller, headers, trace);
}

/** Why the request itself would be refused (nothing asked of the store), or undefined. */
function requestRefusal(params: SendStreamingMessageParams, continuing: boolean): Error | undefined {
  const { message } = params;
  const nulAt = findNulCharacter(params);
  if (nulAt) return InvalidParamsError.forField(nulAt, "must not contain the character U+0000");
  if (message.role !== "ROLE_USER") {
    return InvalidParamsError.forField("params.message.role", 'a partner task is sent with role "user"');
  }
  if (message.taskId !== undefined && !continuing) {
    return new UnsupportedOperationError(
      `Continuing an existing task with message.taskId is not supported; start a new task or follow it with ${FOLLOW_A_TASK}`,
      { field: "params.message.taskId" },
    );
  }
  return undefined;
}

/**
 * The executor's `prepareStart` (TaskExecutor): the entries it adds to the new task's metadata, or why it
 * refuses the start (whatever it threw).
 */
async function prepareStart(
  runtime: A2ARuntime,
  start: StartRequest,
): Promise<{ metadata?: StartPreparation["metadata"]; refusal?: Error }> {
  const { executor } = runtime;
  if (!executor.prepareStart) return {};
  const context: StartContext = {
    workspaceId: start.caller.workspaceId,
    message: start.first,
    get metadata() {
      return start.metadata();
    },
  };
  try {
    const prepared = await executor.prepareStart(context);
    return prepared?.metadata ? { metadata: prepared.metadata } : {};
  } catch (error) {
    return { refusal: error instanceof Error ? error : new Error(String(error)) };
  }
}

/**
 * Why a start's push config (`configuration.pushNotificationConfig`) is refused: push is off (-32003, so a
 * partner expecting notifications learns at once that none will come), or its destination is refused.
 * A retried start whose messageId names a task ignores the config, as it ignores everything else.
 */
async function inlinePushRefusal(
  runtime: A2ARuntime,
  inline: PushConfigInput | undefined,
  version: ProtocolVersion,
): Promise<Error | undefined> {
  if (!inline) return undefined;
  if (!runtime.push) {
    return new PushNotificationNotSupportedError(
      "Push notifications are not supported: start the task without a push notification config and follow it " +
        `with ${FOLLOW_A_TASK}`,
      { field: INLINE_CONFIG_FIELDS[version].config },
    );
  }
  return destinationRefusal(runtime.push, inline, INLINE_CONFIG_FIELDS[version]);
}

/** The new task: its metadata starts with the executor's entries (prepareStart), then the messageId. */
function newTask(runtime: A2ARuntime, message: Message, entries: Record<string, unknown> | undefined): Task {
  const id = runtime.generateId();
  const contextId = message.contextId ?? runtime.generateId();
  const timestamp = runtime.now().toISOString();
  const metadata: Task["metadata"] = {};
  for (const [key, value] of Object.entries(entries ?? {})) if (key !== "messageId") metadata[key] = value;
  if (message.messageId !== undefined) metadata.messageId = message.messageId;
  return {
    id,
    contextId,
    status: { state: "TASK_STATE_WORKING", timestamp },
    artifacts: [],
    history: [withMessageFields(message, { taskId: id, contextId })],
    metadata,
  };
}
