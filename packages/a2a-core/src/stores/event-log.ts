import type { NewTaskEvent, StoredTaskEvent } from "./types.js";

/**
 * The ordered, durable log of a task's stream events. Sequence numbers start at 1 (the `task` event,
 * written by `TaskStore.create`) and grow by one without gaps.
 */
export interface EventLog {
  /**
   * Appends the task's next event and applies it to the stored snapshot (see `applyTaskEvent`) in one
   * atomic step. Returns `undefined` without writing when the task is already terminal, so a task has
   * exactly one `finished` event however many writers race (a runner finishing, a cancel, a takeover).
   */
  append(taskId: string, entry: NewTaskEvent): Promise<StoredTaskEvent | undefined>;

  /** Events with `seq > afterSeq`, in order, at most `limit`. */
  readAfter(taskId: string, afterSeq: number, limit?: number): Promise<StoredTaskEvent[]>;

  /**
   * Resolves once an event with `seq > afterSeq` may exist (at once if one does). Spurious wake-ups are
   * allowed; callers read again. Rejects with the signal's reason when `signal` aborts.
   */
  waitForEvents(taskId: string, afterSeq: number, signal: AbortSignal): Promise<void>;
}
