import { HELD_TASK, type HeldTask } from "../../ports/held-task.js";
import type { ExecutorUpdate, TaskExecutionContext } from "../../ports/task-executor.js";
import type { TaskRecord } from "../../ports/task-records.js";
import type { Message, Task } from "../../protocol/schemas/a2a.js";

/**
 * What an executor is given for one task. A class rather than an object literal: it is held for the
 * whole run of every running task, and an instance keeps its fields in the object itself, where a
 * literal with a getter falls back to a separate, larger property store (measured: ~0.4 KiB per task).
 */
export class ExecutionContext implements TaskExecutionContext {
  readonly taskId: string;
  readonly workspaceId: string;
  readonly signal: AbortSignal;
  /** An own property, so an executor may take it out of the context (`const { emit } = context`). */
  readonly emit: (update: ExecutorUpdate) => Promise<void>;
  /** An own property too, like `emit`. */
  readonly nextMessage: () => Promise<Message>;
  readonly #record: TaskRecord;
  readonly #message: Message;

  constructor(
    record: TaskRecord,
    message: Message,
    signal: AbortSignal,
    emit: (update: ExecutorUpdate) => Promise<void>,
    nextMessage: () => Promise<Message>,
  ) {
    this.#record = record;
    this.taskId = record.task.id;
    this.workspaceId = record.workspaceId;
    this.#message = message;
    this.signal = signal;
    this.emit = emit;
    this.nextMessage = nextMessage;
  }

  /** A copy made when asked for: most executors read a field or two, and a copy held for the whole run
   * would double what each running task keeps in memory. */
  get task(): Task {
    return structuredClone(this.#record.task);
  }

  /** A copy made when asked for, like `task`: the message held is the stored task's own first message. */
  get message(): Message {
    return structuredClone(this.#message);
  }

  /** The task and message uncopied, for this package's own layers (ports/held-task.ts). */
  [HELD_TASK](): HeldTask {
    return { task: this.#record.task, message: this.#message };
  }
}
