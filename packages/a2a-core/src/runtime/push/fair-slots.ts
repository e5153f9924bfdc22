import { type PushClaimOptions, type PushDelivery, pushReceiverOf } from "../../ports/push-deliveries.js";

/** Whom a run of deliveries is sent for: its workspace, and its receiver there (`pushReceiverOf`). */
export interface Tenancy {
  workspace: string;
  receiver: string;
}

/** Slots kept free for tenants below their share: this fraction of a level's, rounded down (docs/operations.md). */
const RESERVE_FRACTION = 1 / 16;

/** A run waiting for a slot: for whom, and since when (epoch ms). */
export interface Waiter {
  tenancy: Tenancy;
  since: number;
}

interface Count {
  held: number;
  waiting: number;
}

interface WorkspaceCount extends Count {
  receivers: Map<string, Count>;
}

/**
 * The fair share of a dispatcher's slots, at two levels: between the workspaces, and between each
 * workspace's receivers within its share. At each level an active tenant (holding or waiting for a slot)
 * is owed `(capacity - reserve) / active tenants`: below that it takes a free slot at once; above it, it
 * may borrow idle ones (the share is work-conserving) but never the last `reserve` of its level: those
 * stay for a tenant below its share. So a workspace whose receivers hang cannot keep another's first
 * notification waiting for their timeouts, nor one hanging receiver the rest of its workspace's. When a
 * slot frees, the waiting run whose workspace (then receiver) holds the fewest goes first.
 */
export class FairSlots<T extends Waiter> {
  private used = 0;
  private readonly workspaces = new Map<string, WorkspaceCount>();
  /** Runs waiting for a slot, oldest first. */
  private readonly waiting: T[] = [];

  constructor(readonly size: number) {}

  get inUse(): number {
    return this.used;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  /** Whether a run for `tenancy` may take a slot now. */
  mayTake(tenancy: Tenancy): boolean {
    return this.workspaceMay(tenancy.workspace) && this.receiverMay(tenancy);
  }

  /** A run that may not take a slot now waits for one. */
  enqueue(run: T): void {
    this.waiting.push(run);
    const count = this.workspace(run.tenancy.workspace);
    count.waiting++;
    counted(count.receivers, run.tenancy.receiver).waiting++;
  }

  /**
   * The waiting run that may take a free slot now, taken out of the queue: its workspace (then receiver)
   * holding the fewest, the oldest among equals.
   */
  next(): T | undefined {
    const index = this.pick();
    const run = index < 0 ? undefined : this.waiting.splice(index, 1)[0];
    if (run) this.uncount(run.tenancy, "waiting");
    return run;
  }

  /** Takes out the runs waiting since before `before` (the oldest are at the front). */
  takeOverdue(before: number): T[] {
    const overdue: T[] = [];
    while ((this.waiting[0]?.since ?? before) < before) {
      const run = this.waiting.shift();
      if (run) overdue.push(run);
    }
    for (const run of overdue) this.uncount(run.tenancy, "waiting");
    return overdue;
  }

  /** Takes out every run waiting. */
  drain(): T[] {
    return this.takeOverdue(Number.POSITIVE_INFINITY);
  }

  private pick(): number {
    let best = -1;
    let fewest = { workspace: Number.POSITIVE_INFINITY, receiver: Number.POSITIVE_INFINITY };
    for (const [index, { tenancy }] of this.waiting.entries()) {
      const count = this.workspaces.get(tenancy.workspace);
      const workspace = count?.held ?? 0;
      const receiver = count?.receivers.get(tenancy.receiver)?.held ?? 0;
      const fewer = workspace < fewest.workspace || (workspace === fewest.workspace && receiver < fewest.receiver);
      if (fewer && this.mayTake(tenancy)) {
        best = index;
        fewest = { workspace, receiver };
      }
    }
    return best;
  }

  /**
   * What the loop may claim now: one delivery per slot nobody waits for (runs waiting are claimed
   * already), passing over the workspaces and receivers that may take no slot (theirs could only wait);
   * when the runs waiting may not have the free slots, as many as are free, passing over those.
   */
  claimRoom(): { limit: number; skip?: PushClaimOptions } {
    const free = this.size - this.used;
    if (free <= 0) return { limit: 0 };
    const { workspaces, receivers } = this.saturated();
    const waited = free - this.waiting.length;
    if (workspaces.length + receivers.length === 0) return { limit: Math.max(0, waited) };
    return { limit: free, skip: { skipWorkspaces: workspaces, skipReceivers: receivers } };
  }

  /** What a claim should pass over now: workspaces, and receivers of a workspace, that may take no slot. */
  private saturated(): { workspaces: string[]; receivers: Tenancy[] } {
    const workspaces: string[] = [];
    const receivers: Tenancy[] = [];
    if (this.used >= this.size) return { workspaces, receivers };
    for (const [workspace, count] of this.workspaces) {
      if (!this.workspaceMay(workspace)) workspaces.push(workspace);
      else {
        for (const receiver of count.receivers.keys()) {
          if (!this.receiverMay({ workspace, receiver })) receivers.push({ workspace, receiver });
        }
      }
    }
    return { workspaces, receivers };
  }

  take({ workspace, receiver }: Tenancy): void {
    this.used++;
    const count = this.workspace(workspace);
    count.held++;
    counted(count.receivers, receiver).held++;
  }

  free(tenancy: Tenancy): void {
    this.used--;
    this.uncount(tenancy, "held");
  }

  /** The first level: the workspace's share of all slots. */
  private workspaceMay(workspace: string): boolean {
    const held = this.workspaces.get(workspace)?.held ?? 0;
    return admits(this.size, this.used, held, this.workspaceShare(workspace));
  }

  /** The second: the receiver's share of its workspace's share (which its workspace may exceed by borrowing). */
  private receiverMay({ workspace, receiver }: Tenancy): boolean {
    const count = this.workspaces.get(workspace);
    const capacity = this.workspaceShare(workspace);
    const active = (count?.receivers.size ?? 0) + (count?.receivers.has(receiver) ? 0 : 1);
    const held = count?.receivers.get(receiver)?.held ?? 0;
    return held < shareOf(capacity, active) || capacity - (count?.held ?? 0) - 1 >= reserveOf(capacity);
  }

  private workspaceShare(workspace: string): number {
    return shareOf(this.size, this.workspaces.size + (this.workspaces.has(workspace) ? 0 : 1));
  }

  private workspace(workspace: string): WorkspaceCount {
    let count = this.workspaces.get(workspace);
    if (!count) {
      count = { held: 0, waiting: 0, receivers: new Map() };
      this.workspaces.set(workspace, count);
    }
    return count;
  }

  private uncount({ workspace, receiver }: Tenancy, field: keyof Count): void {
    const count = this.workspaces.get(workspace);
    if (!count) return;
    count[field] = Math.max(0, count[field] - 1);
    const inner = count.receivers.get(receiver);
    if (inner) {
      inner[field] = Math.max(0, inner[field] - 1);
      if (inner.held === 0 && inner.waiting === 0) count.receivers.delete(receiver);
    }
    if (count.held === 0 && count.waiting === 0) this.workspaces.delete(workspace);
  }
}

/** None below 16 slots: a small dispatcher shares by order only (a new tenant waits for the next free slot). */
function reserveOf(capacity: number): number {
  return Math.floor(capacity * RESERVE_FRACTION);
}

/** Each of `active` tenants' share of `capacity`, its reserve kept back; at least one. */
function shareOf(capacity: number, active: number): number {
  return Math.max(1, Math.floor((capacity - reserveOf(capacity)) / Math.max(1, active)));
}

/** Whether a tenant holding `held` of a level with `used` of `capacity` taken may take one more. */
function admits(capacity: number, used: number, held: number, share: number): boolean {
  return used < capacity && (held < share || capacity - used - 1 >= reserveOf(capacity));
}

function counted(counts: Map<string, Count>, key: string): Count {
  let count = counts.get(key);
  if (!count) {
    count = { held: 0, waiting: 0 };
    counts.set(key, count);
  }
  return count;
}

/** A delivery's tenancy: its workspace and its receiver. */
export function tenancyOf(delivery: PushDelivery): Tenancy {
  return { workspace: delivery.workspaceId, receiver: pushReceiverOf(delivery.config.url) };
}
