import type { Message, TaskEventResult, TaskMetadata, TaskStatus } from "../schemas/a2a.js";
import type { StreamResponseV1, TaskStatusV1, TaskV1 } from "../schemas/a2a-v1.js";
import type { ListedTask } from "../schemas/list-tasks.js";

/**
 * The core's model on A2A v1.0's wire: the model is v1.0, so only what ProtoJSON leaves out differs (an
 * empty history, artifacts a listing did not ask for), and a client reading the wire fills those in
 * again. Nothing here knows about methods or streams.
 */

/** A task on the wire: an empty history is left out (historyLength 0), as ProtoJSON leaves it out. */
export function toV1Task(task: ListedTask): TaskV1 {
  return {
    id: task.id,
    contextId: task.contextId,
    status: task.status,
    ...(task.artifacts === undefined ? {} : { artifacts: task.artifacts }),
    ...(task.history.length === 0 ? {} : { history: task.history }),
    metadata: task.metadata,
  };
}

/** A stream frame's result on the wire. */
export function toV1StreamResult(result: TaskEventResult): StreamResponseV1 {
  return "task" in result ? { task: toV1Task(result.task) } : result;
}

// ---- the wire → the model (a client reading an answer) ---------------------------------------------------

export function fromV1Status(status: TaskStatusV1): TaskStatus {
  return {
    state: status.state,
    ...(status.message ? { message: status.message } : {}),
    // v1.0 makes the timestamp optional; the model requires one, and "" says "not given".
    timestamp: status.timestamp ?? "",
  };
}

/** A checked v1.0 task → the model's; an omitted history reads as empty, omitted artifacts stay omitted. */
export function fromV1Task(task: TaskV1): ListedTask {
  return {
    id: task.id,
    contextId: task.contextId,
    status: fromV1Status(task.status),
    ...(task.artifacts === undefined ? {} : { artifacts: task.artifacts }),
    history: task.history ?? [],
    metadata: (task.metadata ?? {}) as TaskMetadata,
  };
}

/** A checked v1.0 StreamResponse → the model's result of a stream frame. */
export function fromV1StreamResult(result: StreamResponseV1): TaskEventResult | { message: Message } {
  if ("task" in result) {
    const task = fromV1Task(result.task);
    return { task: { ...task, artifacts: task.artifacts ?? [] } };
  }
  if ("statusUpdate" in result) {
    return { statusUpdate: { ...result.statusUpdate, status: fromV1Status(result.statusUpdate.status) } };
  }
  return result;
}
