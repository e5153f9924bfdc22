import type { Caller } from "../../ports/caller.js";
import type { TaskRecord } from "../../ports/task-records.js";
import { InvalidParamsError, TaskNotFoundError, UnsupportedOperationError } from "../../protocol/errors.js";
import type { HeaderReader } from "../../protocol/header-reader.js";
import { isTerminalState, type Message, stateLabel, type TaskUpdateResult } from "../../protocol/schemas/a2a.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";
import { withMessageFields } from "../../runtime/hub/compact-message.js";
import { numberEvents } from "../../runtime/hub/number-events.js";
import { isSettledState } from "../../runtime/streams/await-settled.js";
import type { RequestTrace } from "../../telemetry/handler-telemetry.js";
import type { TaskStreamStart } from "../method.js";
import { FOLLOW_A_TASK } from "./follow-hint.js";
import { reattachCursor } from "./reattach-cursor.js";

/** How often a follow-up is tried again when another writer moved the task on between read and write. */
const ATTEMPTS = 5;

/**
 * A message with `message.taskId` (multi-turn): the caller answers a task that asked for input. The
 * message is appended to the task's log as a `working` status carrying it (so it joins the history),
 * conditionally on the task's newest event being the one read: of two concurrent follow-ups one wins,
 * and the execution that runs the task, on whichever instance, is handed it once (see FollowUps). A
 * retry with the same `messageId` finds it in the history and answers the task without writing again.
 */
export async function continueTask(
  runtime: A2ARuntime,
  message: Message & { taskId: string },
  caller: Caller,
  headers: HeaderReader,
  trace: RequestTrace,
): Promise<TaskStreamStart> {
  const { taskId } = message;
  runtime.telemetry.taskOf(trace, taskId);
  for (let attempt = 1; ; attempt++) {
    const record = await runtime.stores.tasks.get(caller.workspaceId, taskId);
    if (!record) throw TaskNotFoundError.forTask(taskId);
    if (runtime.messageIdsAreKeys && alreadySent(record, message))
      return { record, afterSeq: reattachCursor(record, headers) };
    refuseUnlessWaiting(record, message);
    const now = runtime.now().toISOString();
    const { contextId } = record.task;
    const result: TaskUpdateResult = {
      statusUpdate: {
        taskId,
        contextId,
        status: {
          state: "TASK_STATE_WORKING",
          message: withMessageFields(message, { taskId, contextId }),
          timestamp: now,
        },
      },
    };
    const { stored, snapshot } = numberEvents(record, [{ event: "update", result, createdAt: now }]);
    const appended = await runtime.telemetry.within(trace.span, () =>
      runtime.stores.events.appendNumbered({ taskId, prevSeq: record.lastSeq, events: stored, snapshot }),
    );
    if (appended) {
      const lastSeq = record.lastSeq + stored.length;
      return { record: { ...record, task: snapshot, lastSeq }, afterSeq: lastSeq };
    }
    if (attempt >= ATTEMPTS) {
      throw new UnsupportedOperationError("The task is busy; send the message again", { taskId });
    }
  }
}

function alreadySent(record: TaskRecord, message: Message): boolean {
  if (message.messageId === undefined) return false;
  return record.task.history.some((sent) => sent.role === "ROLE_USER" && sent.messageId === message.messageId);
}

/** A follow-up is taken only by a task that waits for one, in the same context. */
function refuseUnlessWaiting(record: TaskRecord, message: Message): void {
  const { id, contextId, status } = record.task;
  if (message.contextId !== undefined && message.contextId !== contextId) {
    throw InvalidParamsError.forField("params.message.contextId", `is not the contextId of task ${id}`);
  }
  if (isTerminalState(status.state)) {
    throw new UnsupportedOperationError(
      `Task ${id} has ended (${stateLabel(status.state)}) and takes no more messages; start a new task, in the same context if you like`,
      { field: "params.message.taskId", taskId: id, state: stateLabel(status.state) },
    );
  }
  if (!isSettledState(status.state)) {
    throw new UnsupportedOperationError(
      `Task ${id} is ${stateLabel(status.state)}, not waiting for input; follow it with ${FOLLOW_A_TASK}`,
      { field: "params.message.taskId", taskId: id, state: stateLabel(status.state) },
    );
  }
}
