import type { AppendDependencies } from "@a2a-partner/a2a-core";

/** How an item of the writer's queue ended: stored, or failed with this error. */
export type ItemOutcome = { ok: true } | { ok: false; error: unknown };

/** An item as the dependency check sees it: what it depends on, and how it ended once it has. */
export interface DependentItem {
  dependsOn?: AppendDependencies | undefined;
  outcome?: ItemOutcome | undefined;
}

/** Whether an item can go into the batch being formed: yes, not yet, or never (a dependency failed). */
export type DependencyVerdict = { met: true } | { met: false; failed?: { error: unknown } };

const MET: DependencyVerdict = { met: true };
const NOT_YET: DependencyVerdict = { met: false };

/**
 * What the group-commit writer knows of the promises an item depends on (`appendNumbered`'s
 * `dependsOn`). The writer's own items are known by the promise it returned for them: one in the batch
 * being formed counts as met, since a batch is one statement and commits whole or not at all. Any other
 * promise is followed from the moment it is named, and `settled` is called when one of them settles (the
 * writer then looks at its waiting items again).
 */
export class ItemDependencies<Item extends DependentItem> {
  private readonly items = new WeakMap<PromiseLike<unknown>, Item>();
  private readonly followed = new WeakMap<PromiseLike<unknown>, ItemOutcome | "pending">();

  constructor(private readonly settled: () => void) {}

  /** Registers the promise the writer returned for `item`, and follows the other promises it depends on. */
  own(promise: PromiseLike<unknown>, item: Item): void {
    this.items.set(promise, item);
    for (const dependency of item.dependsOn ?? []) if (!this.items.has(dependency)) this.follow(dependency);
  }

  /** `item`'s verdict in a batch that already takes the items in `taken` (all asked for before it). */
  verdict(item: Item, taken: ReadonlySet<Item>): DependencyVerdict {
    let verdict = MET;
    for (const dependency of item.dependsOn ?? []) {
      const own = this.items.get(dependency);
      const outcome = own ? (own.outcome ?? (taken.has(own) ? { ok: true } : "pending")) : this.follow(dependency);
      if (outcome === "pending") verdict = NOT_YET;
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

  private follow(dependency: PromiseLike<unknown>): ItemOutcome | "pending" {
    const known = this.followed.get(dependency);
    if (known) return known;
    this.followed.set(dependency, "pending");
    const settle = (outcome: ItemOutcome) => {
      this.followed.set(dependency, outcome);
      this.settled();
    };
    dependency.then(
      () => settle({ ok: true }),
      (error: unknown) => settle({ ok: false, error }),
    );
    return "pending";
  }
}
