import type { Message, Task, TaskEventResult, TaskState } from "@a2a-partner/a2a-core";
import {
  fromV03Event,
  fromV03Message,
  fromV03Task,
  type MessageV03,
  type TaskUpdateResultV03,
  type TaskV03,
  toV03State,
  v03EventJson,
  v03TaskJson,
} from "@a2a-partner/a2a-core/protocol";

/**
 * What the tables hold: tasks, messages and event results in A2A v0.3's shapes, and `tasks.state` in its
 * spelling — the format every earlier release wrote and reads, so an instance of the previous release
 * and one of this release share a database during a rolling upgrade (docs/versioning.md). The store's
 * port speaks the core's model (A2A v1.0); this file is the one place that converts. Reads accept both
 * shapes (a row in the model's shape has no `kind`), so a later release may write the model itself
 * once no reader of v0.3 rows is left.
 */

/**
 * A task as a row's `snapshot` holds it, as JSON: the text of `JSON.stringify(toV03Task(task))`, joined
 * from the JSON each message and artifact keeps (`v03TaskJson`). `withoutFirstMessage` for a snapshot whose
 * row keeps that message apart (rows.ts).
 */
export function storedTaskJson(task: Task, options?: { withoutFirstMessage: true }): string {
  return v03TaskJson(task, options ? 1 : 0);
}

/** `tasks.state`: the state in v0.3's spelling (what the list filter and earlier releases compare). */
export function storedState(state: TaskState): string {
  return toV03State(state);
}

/** An event's `result` as JSON text for the `task_events.result` column (made once per result object). */
export function storedEventJson(result: TaskEventResult): string {
  return v03EventJson(result);
}

/** A row's snapshot (with its first message back in place) → the model's task. */
export function taskFromRow(stored: TaskV03 | Task): Task {
  if (!isV03(stored)) return stored as Task;
  // Every release writes both lists; a row made by hand may lack one.
  const task = stored as Partial<TaskV03> & TaskV03;
  return fromV03Task({ ...task, history: task.history ?? [], artifacts: task.artifacts ?? [] });
}

/** A row's `first_message` → the model's message. */
export function messageFromRow(stored: MessageV03 | Message): Message {
  return stored.role === "user" || stored.role === "agent" ? fromV03Message(stored as MessageV03) : (stored as Message);
}

/** A `task_events.result` → the model's result. */
export function eventFromRow(stored: TaskV03 | TaskUpdateResultV03 | TaskEventResult): TaskEventResult {
  return isV03(stored) ? fromV03Event(stored as TaskV03 | TaskUpdateResultV03) : (stored as TaskEventResult);
}

function isV03(stored: object): boolean {
  return "kind" in stored;
}
