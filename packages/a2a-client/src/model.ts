import {
  fromV1StreamResult,
  fromV1Task,
  type MessageV1,
  type StreamResponseV1,
  type TaskUpdateResultV03,
  type TaskV1,
  type TaskV03,
  toV03Event,
  toV03Message,
  toV03Task,
} from "@a2a-partner/a2a-core/protocol";

/**
 * The client's model: A2A v0.3's shapes (lowercase states, parts with `kind`), the shapes of the
 * reference server's contract and of every partner's code, whichever dialect or binding the client
 * speaks. a2a-core's own model is A2A v1.0; answers in v1.0 are mapped here with the core's mapping.
 */
export {
  ArtifactV03 as Artifact,
  isTerminalStateV03 as isTerminalState,
  ListedTaskV03 as ListedTask,
  ListTasksResultV03 as ListTasksResult,
  MessageV03 as Message,
  PartV03 as Part,
  TaskArtifactUpdateEventV03 as TaskArtifactUpdateEvent,
  TaskStateV03 as TaskState,
  TaskStatusUpdateEventV03 as TaskStatusUpdateEvent,
  TaskStatusV03 as TaskStatus,
  TaskUpdateResultV03 as TaskUpdateResult,
  TaskV03 as Task,
  TerminalTaskStateV03 as TerminalTaskState,
} from "@a2a-partner/a2a-core/protocol";

/** A checked v1.0 task → the client's (artifacts stay left out when a listing left them out). */
export function taskFromV1(task: TaskV1) {
  return toV03Task(fromV1Task(task));
}

/** A checked v1.0 stream result → the client's; a message result has no counterpart here (undefined). */
export function streamResultFromV1(result: StreamResponseV1): TaskV03 | TaskUpdateResultV03 | undefined {
  const model = fromV1StreamResult(result);
  return "message" in model ? undefined : toV03Event(model);
}

/** A checked v1.0 message → the client's. */
export function messageFromV1(message: MessageV1) {
  return toV03Message(message);
}
