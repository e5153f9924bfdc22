import { type AppendDependencies, DependencyFailedError } from "../../ports/append-dependencies.js";
import type { NewTaskEvent, StoredTaskEvent } from "../../ports/task-records.js";

interface Caller {
  entries: readonly NewTaskEvent[];
  /** Whether the entries hold the task's `finished`. */
  ends: boolean;
  /** How many of the task's groups had been lost when this caller asked (see `settle`). */
  lostBefore: number;
  /** Writes the entries depend on (a task's end: `TaskOutcome.dependsOn`). */
  dependsOn: AppendDependencies | undefined;
  resolve(stored: StoredTaskEvent[] | undefined): void;
  reject(error: unknown): void;
}

/**
 * The appends of one task asked for while its previous append was still being stored: numbered and
 * stored together, in one commit, when that one is done. An executor that reports steps faster than
 * commits return then pays one commit per batch of steps, not one per step; each caller still learns
 * only of its own events, and only once they are durable.
 */
export class AppendGroup {
  private readonly callers: Caller[] = [];
  private endsTask = false;

  /** Whether later appends may join: not after a `finished` (whatever follows it is refused). */
  get isOpen(): boolean {
    return !this.endsTask;
  }

  /** `lostBefore`: how many of the task's groups had failed to be stored when these entries were asked for. */
  add(
    entries: readonly NewTaskEvent[],
    lostBefore: number,
    dependsOn?: AppendDependencies,
  ): Promise<StoredTaskEvent[] | undefined> {
    return new Promise((resolve, reject) => {
      const ends = entries.some((entry) => entry.event === "finished");
      this.callers.push({ entries, ends, lostBefore, dependsOn, resolve, reject });
      if (ends) this.endsTask = true;
    });
  }

  /**
   * Stores the group with `store` and answers every caller: its own events, or why not. `lost` is how
   * many of the task's groups have failed to be stored by now: an update asked for before the newest of
   * those failures is refused unstored, so the log never holds progress reported after progress it lost
   * (its caller had not heard of the loss yet). A task's end is stored whenever it was asked for, and so
   * is whatever was asked for once the loss was known, except an end that depends on writes: the task's
   * own updates count among them, so after any loss it is refused (`DependencyFailedError`).
   */
  async settle(
    store: (entries: readonly NewTaskEvent[], dependsOn?: AppendDependencies) => Promise<StoredTaskEvent[] | undefined>,
    lost: number,
  ): Promise<void> {
    const kept: Caller[] = [];
    for (const caller of this.callers) {
      if (caller.lostBefore < lost && !caller.ends) caller.reject(new EarlierEventLost());
      else if (caller.dependsOn && lost > 0) caller.reject(new DependencyFailedError(new EarlierEventLost()));
      else kept.push(caller);
    }
    if (kept.length === 0) return;
    const dependsOn = kept.some((caller) => caller.dependsOn)
      ? kept.flatMap((caller) => caller.dependsOn ?? [])
      : undefined;
    try {
      const stored = await store(
        kept.flatMap((caller) => caller.entries),
        dependsOn,
      );
      let from = 0;
      for (const caller of kept) {
        const to = from + caller.entries.length;
        caller.resolve(stored?.slice(from, to));
        from = to;
      }
    } catch (error) {
      for (const caller of kept) caller.reject(error);
    }
  }
}

/** An update refused because progress asked for before it could not be stored (see `AppendGroup.settle`). */
export class EarlierEventLost extends Error {
  constructor() {
    super("an earlier event of this task could not be stored");
    this.name = "EarlierEventLost";
  }
}
