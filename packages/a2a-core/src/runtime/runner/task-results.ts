import type { ExecutorUpdate } from "../../ports/task-executor.js";
import type { TaskRecord } from "../../ports/task-records.js";
import type { TaskState, TaskStatus, TaskUpdateResult } from "../../protocol/schemas/a2a.js";

/** The `result` of the events a runner writes: progress, artifacts and the status that ends a task. */
export class TaskResults {
  constructor(
    private readonly now: () => Date,
    private readonly generateId: () => string,
  ) {}

  /** The `update` event's result for an executor's progress or artifact. */
  update(record: TaskRecord, update: ExecutorUpdate): TaskUpdateResult {
    return update.kind === "status"
      ? {
          kind: "status-update",
          taskId: record.task.id,
          contextId: record.task.contextId,
          status: this.status(record, update.state ?? "working", update.message),
          final: false,
          ...(update.metadata ? { metadata: update.metadata } : {}),
        }
      : {
          kind: "artifact-update",
          taskId: record.task.id,
          contextId: record.task.contextId,
          artifact: update.artifact,
          ...(update.append === undefined ? {} : { append: update.append }),
          ...(update.lastChunk === undefined ? {} : { lastChunk: update.lastChunk }),
          ...(update.metadata ? { metadata: update.metadata } : {}),
        };
  }

  status(record: TaskRecord, state: TaskState, text: string | undefined): TaskStatus {
    const timestamp = this.now().toISOString();
    if (!text) return { state, timestamp };
    return {
      state,
      timestamp,
      message: {
        kind: "message",
        role: "agent",
        messageId: this.generateId(),
        parts: [{ kind: "text", text }],
        taskId: record.task.id,
        contextId: record.task.contextId,
      },
    };
  }
}
