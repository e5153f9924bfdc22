import type { AppendDependencies } from "@a2a-partner/a2a-core";

/** How an item of the writer's queue ended: stored, or failed with this error. */
export type ItemOutcome = { ok: true } | { ok: false; error: unknown };

/** A promise that is not one of the writer's items, followed from the moment an item names it. */
interface Followed {
  outcome: ItemOutcome | undefined;
}

/** An item as the dependency check sees it. */
export interface DependentItem {
  dependsOn?: AppendDependencies | undefined;
  /** How it ended, once it has: another item may depend on it. */
  outcome?: ItemOutcome | undefined;
  /** Its `dependsOn`, each as the writer's item it is or as a followed promise (`ItemDependencies.own`). */
  dependencies?: ReadonlyArray<DependentItem | Followed> | undefined;
  /** The promise the writer returned for it, while it is unsettled. */
  promise?: PromiseLike<unknown> | undefined;
}

/** Whether an item can go into the batch being formed: yes, not yet, or never (a dependency failed). */
export type DependencyVerdict = { met: true } | { met: false; failed?: { error: unknown } };

const MET: DependencyVerdict = { met: true };
const NOT_YET: DependencyVerdict = { met: false };
const OK: ItemOutcome = { ok: true };

/**
 * What the group-commit writer knows of the promises an item depends on (`appendNumbered`'s and
 * `updateRows`' `dependsOn`). A promise the writer returned for an item still unsettled is known as that
 * item: one in the batch being formed counts as met, since a batch is one statement and commits whole or
 * not at all. Any other promise is followed from the moment an item names it, and `settled` is called
 * when it settles (the writer then looks at its waiting items again). Nothing is kept past an item's end.
 */
export class ItemDependencies<Item extends DependentItem> {
  private readonly unsettled = new Map<PromiseLike<unknown>, Item>();

  constructor(private readonly settled: () => void) {}

  /** Registers a newly queued item and the promise the writer returned for it. */
  own(promise: PromiseLike<unknown>, item: Item): void {
    item.promise = promise;
    this.unsettled.set(promise, item);
    if (item.dependsOn) item.dependencies = item.dependsOn.map((dependency) => this.known(dependency));
  }

  /** Records how an item ended (before the next batch is formed: items may depend on it). */
  ended(item: Item, outcome: ItemOutcome): void {
    item.outcome = outcome;
    if (item.promise) this.unsettled.delete(item.promise);
    item.promise = undefined;
    item.dependencies = undefined;
  }

  /** `item`'s verdict in a batch that already takes the items in `taken` (all asked for before it). */
  verdict(item: Item, taken: ReadonlySet<Item>): DependencyVerdict {
    let verdict = MET;
    for (const dependency of item.dependencies ?? []) {
      const outcome = dependency.outcome ?? (taken.has(dependency as Item) ? OK : undefined);
      if (!outcome) verdict = NOT_YET;
      else if (!outcome.ok) return { met: false, failed: { error: outcome.error } };
    }
    return verdict;
  }

  /** Waits for `item`'s dependencies to settle; the first failure's error, if one failed. */
  async failureOf(item: Item): Promise<{ error: unknown } | undefined> {
    const results = await Promise.allSettled(item.dependsOn ?? []);
    const failed = results.find((result) => result.status === "rejected");
    return failed ? { error: failed.reason } : undefined;
  }

  private known(dependency: PromiseLike<unknown>): DependentItem | Followed {
    const own = this.unsettled.get(dependency);
    if (own) return own;
    const followed: Followed = { outcome: undefined };
    const settle = (outcome: ItemOutcome) => {
      followed.outcome = outcome;
      this.settled();
    };
    dependency.then(
      () => settle(OK),
      (error: unknown) => settle({ ok: false, error }),
    );
    return followed;
  }
}
