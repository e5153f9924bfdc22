import type { Logger } from "../../ports/logger.js";
import type { TaskRecord } from "../../ports/task-records.js";
import { stateLabel, type TaskState } from "../../protocol/schemas/a2a.js";

// A task's start and end at info, for an operator following tasks: its ids and storeId, its end state and
// duration, never the partner's text.

export function logTaskStarted(logger: Logger, record: TaskRecord): void {
  logger.info(taskFields(record), "task started");
}

export function logTaskEnded(logger: Logger, record: TaskRecord, state: TaskState, endedAtMs: number): void {
  const durationMs = Math.max(0, endedAtMs - Date.parse(record.createdAt));
  logger.info(
    { ...taskFields(record), state: stateLabel(state), ...(Number.isFinite(durationMs) ? { durationMs } : {}) },
    "task ended",
  );
}

/** What an operator's log line says of a task: never its text (a partner's words) or a credential. */
function taskFields(record: TaskRecord): { taskId: string; workspaceId: string; storeId?: string } {
  const { storeId } = record.task.metadata;
  return { taskId: record.task.id, workspaceId: record.workspaceId, ...(storeId === undefined ? {} : { storeId }) };
}
