import { heldTaskOf } from "../ports/held-task.js";
import type { ExecutorUpdate, TaskExecutionContext } from "../ports/task-executor.js";
import type { Message, Task } from "../protocol/schemas/a2a.js";
import { textOfMessage } from "../protocol/text-of-message.js";
import type { EnvironmentTaskContext } from "./environment-executor-types.js";

/**
 * The port's context with the task's Environment and text. A class, like the port's own context: it is
 * held for the whole run of the task, and keeps its fields in the object itself.
 */
export class EnvironmentContext implements EnvironmentTaskContext {
  readonly taskId: string;
  readonly workspaceId: string;
  readonly storeId: string;
  readonly text: string;
  readonly signal: AbortSignal;
  /** Own properties, as on the port's context: `const { emit } = context` works. */
  readonly emit: (update: ExecutorUpdate) => Promise<void>;
  readonly nextMessage: () => Promise<Message>;
  readonly #context: TaskExecutionContext;

  constructor(context: TaskExecutionContext) {
    // Two fields read, so the task is not copied (the port's `task` is a copy, a whole task at the bounds).
    const { task, message } = heldTaskOf(context);
    const { storeId } = task.metadata;
    if (storeId === undefined) {
      throw new TypeError(`task ${context.taskId} was started without an Environment (environmentExecutor)`);
    }
    this.#context = context;
    this.taskId = context.taskId;
    this.workspaceId = context.workspaceId;
    this.storeId = storeId;
    this.text = textOfMessage(message);
    this.signal = context.signal;
    this.emit = context.emit;
    this.nextMessage = context.nextMessage;
  }

  get task(): Task {
    return this.#context.task;
  }

  get message(): Message {
    return this.#context.message;
  }
}
