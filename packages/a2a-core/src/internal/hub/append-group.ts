import type { NewTaskEvent, StoredTaskEvent } from "../../stores/types.js";

interface Caller {
  from: number;
  to: number;
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
  readonly entries: NewTaskEvent[] = [];
  private readonly callers: Caller[] = [];
  private endsTask = false;

  /** Whether later appends may join: not after a `finished` (whatever follows it is refused). */
  get isOpen(): boolean {
    return !this.endsTask;
  }

  add(entries: readonly NewTaskEvent[]): Promise<StoredTaskEvent[] | undefined> {
    return new Promise((resolve, reject) => {
      const from = this.entries.length;
      this.entries.push(...entries);
      this.callers.push({ from, to: this.entries.length, resolve, reject });
      if (entries.some((entry) => entry.event === "finished")) this.endsTask = true;
    });
  }

  /** Stores the group with `store` and answers every caller: its own events, or why not. */
  async settle(store: (entries: readonly NewTaskEvent[]) => Promise<StoredTaskEvent[] | undefined>): Promise<void> {
    try {
      const stored = await store(this.entries);
      for (const caller of this.callers) caller.resolve(stored?.slice(caller.from, caller.to));
    } catch (error) {
      for (const caller of this.callers) caller.reject(error);
    }
  }
}
