import type { AppendDependencies } from "../../ports/append-dependencies.js";
import type { NewTaskEvent, StoredTaskEvent } from "../../ports/task-records.js";
import { AppendGroup } from "./append-group.js";

/** An owner's append: its events once stored, or undefined when the task had ended. */
export type Appended = Promise<StoredTaskEvent[] | undefined>;

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
  constructor(private readonly store: (entries: readonly NewTaskEvent[], dependsOn?: AppendDependencies) => Appended) {}

  /** `dependsOn`: writes the entries depend on (see `EventLog.appendNumbered`). */
  append(entries: readonly NewTaskEvent[], dependsOn?: AppendDependencies): Appended {
    if (this.waiting?.isOpen) return this.waiting.add(entries, this.lostGroups, dependsOn);
    const group = new AppendGroup();
    this.waiting = group;
    this.chain = this.chain.then(() => {
      // From here on the group is being stored: later appends form the next one. Progress asked for before
      // an earlier group failed to be stored is refused there (see AppendGroup.settle).
      if (this.waiting === group) this.waiting = undefined;
      return group.settle((all, groupDependsOn) => this.storeGroup(all, groupDependsOn), this.lostGroups);
    });
    return group.add(entries, this.lostGroups, dependsOn);
  }

  /** Runs `work` once the appends asked for so far are done; later appends wait for it in turn. */
  after(work: () => Promise<void>): Promise<void> {
    const run = this.chain.then(work);
    this.chain = run.catch(() => undefined);
    return run;
  }

  private async storeGroup(entries: readonly NewTaskEvent[], dependsOn: AppendDependencies | undefined): Appended {
    try {
      return await this.store(entries, dependsOn);
    } catch (error) {
      this.lostGroups++;
      throw error;
    }
  }
}
