import type { NewTaskEvent, StoredTaskEvent } from "../../ports/task-records.js";
import { AppendGroup } from "./append-group.js";

/**
 * An owned task's appends, stored one group after another (each numbers from the one before). Appends
 * asked for while a group is being stored go together, as the next group.
 */
export class AppendQueue {
  private chain: Promise<unknown> = Promise.resolve();
  /** Appends asked for while one is under way: they go together, as the next one. */
  private waiting: AppendGroup | undefined;
  /** Groups that could not be stored (see `AppendGroup.settle`). */
  private lostGroups = 0;

  /** `store` numbers and stores one group; undefined: the task had ended. */
  constructor(private readonly store: (entries: readonly NewTaskEvent[]) => Promise<StoredTaskEvent[] | undefined>) {}

  append(entries: readonly NewTaskEvent[]): Promise<StoredTaskEvent[] | undefined> {
    if (this.waiting?.isOpen) return this.waiting.add(entries, this.lostGroups);
    const group = new AppendGroup();
    this.waiting = group;
    this.chain = this.chain.then(() => {
      // From here on the group is being stored: later appends form the next one. Progress asked for before
      // an earlier group failed to be stored is refused there (see AppendGroup.settle).
      if (this.waiting === group) this.waiting = undefined;
      return group.settle((all) => this.storeGroup(all), this.lostGroups);
    });
    return group.add(entries, this.lostGroups);
  }

  /** Runs `work` once the appends asked for so far are done; later appends wait for it in turn. */
  after(work: () => Promise<void>): Promise<void> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async storeGroup(entries: readonly NewTaskEvent[]): Promise<StoredTaskEvent[] | undefined> {
    try {
      return await this.store(entries);
    } catch (error) {
      this.lostGroups++;
      throw error;
    }
  }
}
