import type { ExecutorUpdate } from "../../ports/task-executor.js";
import type { TaskRecord } from "../../ports/task-records.js";
import type { TaskState, TaskStatus, TaskUpdateResult } from "../../protocol/schemas/a2a.js";
import { checkedProgressState } from "./executor-states.js";

/** The `result` of the events a runner writes: progress, artifacts and the status that ends a task. */
export class TaskResults {
  constructor(
    private readonly now: () => Date,
    private readonly generateId: () => string,
  ) {}

  /** The `update` event's result for an executor's progress or artifact. */
  update(record: TaskRecord, update: ExecutorUpdate): TaskUpdateResult {
    if (update.kind === "status") {
      return {
        statusUpdate: {
          taskId: record.task.id,
          contextId: record.task.contextId,
          status: this.status(record, checkedProgressState(update.state) ?? "TASK_STATE_WORKING", update.message),
          ...(update.metadata ? { metadata: update.metadata } : {}),
        },
      };
    }
    return {
      artifactUpdate: {
        taskId: record.task.id,
        contextId: record.task.contextId,
        artifact: update.artifact,
        ...(update.append === undefined ? {} : { append: update.append }),
        ...(update.lastChunk === undefined ? {} : { lastChunk: update.lastChunk }),
        ...(update.metadata ? { metadata: update.metadata } : {}),
      },
    };
  }

  status(record: TaskRecord, state: TaskState, text: string | undefined): TaskStatus {
    const timestamp = this.now().toISOString();
    if (!text) return { state, timestamp };
    return {
      state,
      message: {
        messageId: this.generateId(),
        contextId: record.task.contextId,
        taskId: record.task.id,
        role: "ROLE_AGENT",
        parts: [{ text }],
      },
      timestamp,
    };
  }
}
