import type { Task } from "../../protocol/schemas/a2a.js";

/** The task with only its `historyLength` most recent messages (0: none; undefined: all of them). */
export function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}
