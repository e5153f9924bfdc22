import type { Task } from "../protocol/schemas/a2a.js";
import type { AppendDependencies } from "./append-dependencies.js";
import type { NewTaskEvent, StoredTaskEvent } from "./task-records.js";

/**
 * Events numbered by the process that runs the task (it holds the task's lease): one, or a few that
 * belong together (the artifacts a task ends with and its `finished`), numbered `prevSeq + 1` on without
 * gaps, with the snapshot after the last. Stored together, and only if the task's newest stored event is
 * still `prevSeq` and the task has not ended: otherwise somebody else wrote to the task (a cancel on
 * another instance, a takeover) and nothing is written.
 */
export interface NumberedAppend {
  taskId: string;
  prevSeq: number;
  events: readonly StoredTaskEvent[];
  snapshot: Task;
}

/**
 * Told when a task may have events beyond what the watcher has seen: with the task's newest sequence
 * number when the store knows it, or `undefined` when it does not (e.g. after a lost connection, or the
 * task no longer exists): then read and see. A store whose change notifications can carry the new events
 * (the PostgreSQL store's do for a task a watcher follows from another process, when they are small)
 * passes them as `carried`, so that watcher need not read the log for them.
 */
export type TaskChangeListener = (newestSeq: number | undefined, carried?: CarriedEvents) => void;

/** How a watcher watches a task. */
export interface WatchOptions {
  /**
   * The watcher follows the task for streams while another process may be running it: a store whose
   * notifications can carry events (`CarriedEvents`) carries this task's. Other watchers (the process
   * running the task, a push dispatcher) are told of changes only.
   */
  following?: boolean;
}

/**
 * The events a change notification carried: exactly the log's events `fromSeq..newestSeq`, as
 * `readAfter` would return them. `read()` parses them at its first call (most notifications reach a
 * process that does not need them); an empty list means they could not be read: read the log instead.
 */
export interface CarriedEvents {
  readonly fromSeq: number;
  read(): readonly StoredTaskEvent[];
}

/**
 * The ordered, durable log of a task's stream events. Sequence numbers start at 1 (the `task` event,
 * written by `TaskStore.create`) and grow by one without gaps.
 */
export interface EventLog {
  /**
   * Appends the task's next event and applies it to the stored snapshot (see `applyTaskEvent`) in one
   * atomic step. Returns `undefined` without writing when the task is already terminal, so a task has
   * exactly one `finished` event however many writers race (a runner finishing, a cancel, a takeover).
   * For writers that do not run the task (a cancel from another instance, the orphan sweep).
   */
  append(taskId: string, entry: NewTaskEvent): Promise<StoredTaskEvent | undefined>;
  /**
   * Stores an event the task's runner numbered (see `NumberedAppend`). Resolves `true` once it is
   * durable, `false` when it was refused because the task moved on. Implementations may commit many
   * concurrent appends together (group commit); each resolves when its own commit does.
   *
   * With `dependsOn`, the append is stored only if every one of those writes succeeds: a store waits for
   * them first (`dependenciesSucceeded`), or one that commits in batches may store the append in the same
   * commit as the last of them (so a task's end need not wait a commit for its executor's last records).
   * When one fails, it rejects with a `DependencyFailedError` and stores nothing.
   */
  appendNumbered(append: NumberedAppend, dependsOn?: AppendDependencies): Promise<boolean>;
  /** Events with `seq > afterSeq`, in order, at most `limit`. */
  readAfter(taskId: string, afterSeq: number, limit?: number): Promise<StoredTaskEvent[]>;
  /**
   * Calls `listener` whenever the task may have new events, from any writer in any process, until the
   * returned function is called. Spurious calls are allowed. Events committed before `watch` returned
   * are not announced: register first, then read.
   */
  watch(taskId: string, listener: TaskChangeListener, options?: WatchOptions): () => void;
}

/** Throws for a numbered append whose events do not follow `prevSeq` one by one: a caller's bug. */
export function checkNumberedAppend(append: NumberedAppend): void {
  if (append.events.length === 0) throw new Error("a numbered append needs at least one event");
  append.events.forEach((event, index) => {
    if (event.seq !== append.prevSeq + 1 + index) {
      throw new Error(`event ${event.seq} does not follow ${append.prevSeq + index}`);
    }
  });
}
