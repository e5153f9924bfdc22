import { A2AClientError, APIConnectionError, APIUserAbortError } from "../errors.js";
import type { Message, Task } from "../model.js";
import type { TaskFinishedEvent, TaskStreamEvent } from "./events.js";

/** What drives a TaskStream: reads the task's events and reports each one. */
export type TaskStreamRunner = (context: {
  signal: AbortSignal;
  onEvent(event: TaskStreamEvent, fresh: boolean): void;
}) => Promise<void>;

/**
 * A live task: an async iterable of its events (each exactly once, in order, across reattaches) plus
 * promises for the task snapshot and the finished event (and, for a start, the agent's message reply). It starts reading at once; iterate it, await
 * `finished`, or both. Breaking out of the loop or calling `abort()` closes the connection; the task
 * itself goes on on the server (cancel it with `cancelTask`).
 */
export class TaskStream implements AsyncIterable<TaskStreamEvent> {
  /** The messageId the task was started with (the idempotency key); undefined for a subscription. */
  readonly messageId: string | undefined;
  /** The task as first seen on this stream (a new task: state `working`). */
  readonly task: Promise<Task>;
  /** The `finished` event: resolves when the task ended, rejects if the stream could not be followed. */
  readonly finished: Promise<TaskFinishedEvent>;
  /**
   * The agent's message when it answered the start with one instead of a task (then `task` and `finished`
   * reject: there is no task); undefined as soon as the stream shows a task. Rejects as `task` does when the
   * stream fails before either.
   */
  readonly reply: Promise<Message | undefined>;

  readonly #controller = new AbortController();
  readonly #queue: TaskStreamEvent[] = [];
  #wake: (() => void) | undefined;
  #done = false;
  #error: Error | undefined;
  #iterated = false;
  #taskId: string | undefined;
  #lastEventId: string | undefined;
  #resolveTask!: (task: Task) => void;
  #rejectTask!: (error: Error) => void;
  #resolveFinished!: (event: TaskFinishedEvent) => void;
  #rejectFinished!: (error: Error) => void;
  #resolveReply!: (message: Message | undefined) => void;
  #rejectReply!: (error: Error) => void;
  #settledReply = false;
  #settledTask = false;
  #settledFinished = false;
  #detachSignal: () => void = () => {};

  constructor(run: TaskStreamRunner, init: { messageId?: string; taskId?: string; signal?: AbortSignal } = {}) {
    this.messageId = init.messageId;
    this.#taskId = init.taskId;
    this.task = new Promise<Task>((resolve, reject) => {
      this.#resolveTask = resolve;
      this.#rejectTask = reject;
    });
    this.finished = new Promise<TaskFinishedEvent>((resolve, reject) => {
      this.#resolveFinished = resolve;
      this.#rejectFinished = reject;
    });
    this.reply = new Promise<Message | undefined>((resolve, reject) => {
      this.#resolveReply = resolve;
      this.#rejectReply = reject;
    });
    // Callers that only iterate must not get unhandled-rejection crashes from the promises they ignore.
    this.task.catch(() => {});
    this.finished.catch(() => {});
    this.reply.catch(() => {});

    const { signal } = init;
    const onAbort = () => this.#controller.abort();
    if (signal?.aborted) this.#controller.abort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    // A caller's long-lived signal must not collect a listener per stream it ever started.
    this.#detachSignal = () => signal?.removeEventListener("abort", onAbort);

    run({ signal: this.#controller.signal, onEvent: (event, fresh) => this.#onEvent(event, fresh) }).then(
      () =>
        this.#end(
          this.#settledFinished ? undefined : new APIConnectionError("The stream ended before the task finished"),
        ),
      (error: unknown) => this.#end(error instanceof Error ? error : new Error(String(error))),
    );
  }

  /** The task id, once the `task` event arrived (or from the start, for a subscription). */
  get taskId(): string | undefined {
    return this.#taskId;
  }

  /** The SSE id of the newest event delivered: pass it to `subscribeToTask` to continue elsewhere. */
  get lastEventId(): string | undefined {
    return this.#lastEventId;
  }

  /** Closes the connection; iteration ends with APIUserAbortError. The task goes on on the server. */
  abort(): void {
    this.#controller.abort();
  }

  [Symbol.asyncIterator](): AsyncIterator<TaskStreamEvent> {
    if (this.#iterated) throw new TypeError("A TaskStream can be iterated only once");
    this.#iterated = true;
    return {
      next: () => this.#next(),
      return: async () => {
        // The loop was left early (break, throw): stop reading quietly.
        this.#queue.length = 0;
        this.#done = true;
        this.#error = undefined;
        this.#controller.abort();
        return { done: true, value: undefined };
      },
    };
  }

  async #next(): Promise<IteratorResult<TaskStreamEvent>> {
    for (;;) {
      const event = this.#queue.shift();
      if (event) return { done: false, value: event };
      if (this.#error) {
        const error = this.#error;
        this.#error = undefined;
        throw error;
      }
      if (this.#done) return { done: true, value: undefined };
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
    }
  }

  #onEvent(event: TaskStreamEvent, fresh: boolean): void {
    if (event.type === "message" && !this.#settledReply) {
      this.#settledReply = true;
      this.#resolveReply(event.message);
      const noTask = new A2AClientError("The agent answered with a message, not a task: see TaskStream.reply");
      if (!this.#settledTask) this.#rejectTask(noTask);
      if (!this.#settledFinished) this.#rejectFinished(noTask);
      this.#settledTask = true;
      this.#settledFinished = true;
    }
    if (event.type === "task" && !this.#settledReply) {
      this.#settledReply = true;
      this.#resolveReply(undefined);
    }
    if (event.type === "task") {
      this.#taskId ??= event.task.id;
      if (!this.#settledTask) {
        this.#settledTask = true;
        this.#resolveTask(event.task);
      }
    }
    if (event.type === "finished" && !this.#settledFinished) {
      this.#settledFinished = true;
      this.#resolveFinished(event);
    }
    if (!fresh || this.#done) return;
    if (event.eventId !== undefined) this.#lastEventId = event.eventId;
    this.#queue.push(event);
    this.#signal();
  }

  #end(error: Error | undefined): void {
    this.#detachSignal();
    const failure = error && this.#controller.signal.aborted ? new APIUserAbortError() : error;
    if (failure) {
      if (!this.#settledTask) this.#rejectTask(failure);
      if (!this.#settledFinished) this.#rejectFinished(failure);
      if (!this.#settledReply) this.#rejectReply(failure);
      this.#settledTask = true;
      this.#settledFinished = true;
      this.#settledReply = true;
      if (!this.#done) this.#error = failure;
    }
    this.#done = true;
    this.#signal();
  }

  #signal(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
