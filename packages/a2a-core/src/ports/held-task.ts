import type { Message, Task } from "../protocol/schemas/a2a.js";
import type { TaskExecutionContext } from "./task-executor.js";

/**
 * The key under which the core's own execution context lends its task and first message uncopied, to the
 * layers inside this package that read a field or two of them (environments/). The port's `task` and
 * `message` are copies made on each read; at the request bounds a copy is a whole task. Not exported from
 * any entry: an embedder's code reads the port.
 */
export const HELD_TASK: unique symbol = Symbol("a2a-core.heldTask");

/** What a context lends under HELD_TASK: read it, never change it or keep it past the execution. */
export interface HeldTask {
  readonly task: Task;
  readonly message: Message;
}

/** The context's task and first message uncopied when it is the core's own, else copies from the port. */
export function heldTaskOf(context: TaskExecutionContext): HeldTask {
  const lender = (context as { [HELD_TASK]?: () => HeldTask })[HELD_TASK];
  return typeof lender === "function" ? lender.call(context) : { task: context.task, message: context.message };
}
