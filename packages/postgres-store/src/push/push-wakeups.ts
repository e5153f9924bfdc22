import type { HandedPushDelivery } from "@a2a-partner/a2a-core";

/**
 * The channel a commit that inserted push deliveries NOTIFYs on (payload empty): dispatchers on every
 * instance listening to it go and claim.
 */
export const PUSH_DELIVERIES_CHANNEL = "a2a_push_deliveries";

/**
 * The same wake-up for this process's own dispatchers, told directly once a commit of this process
 * returns (the NOTIFY comes back to this process's LISTEN a round trip later): delivery lag is then the
 * commit plus the claim, not a NOTIFY's trip as well. Kept per Database, so every writer on one (the
 * group commit, a single append, a task start) reaches the queues built on it without being handed them.
 */
const local = new WeakMap<object, Set<() => void>>();

/** Calls `listener` after each commit on `db` in this process that inserted deliveries. */
export function onLocalDeliveries(db: object, listener: () => void): () => void {
  let listeners = local.get(db);
  if (!listeners) {
    listeners = new Set();
    local.set(db, listeners);
  }
  const mine = listeners;
  mine.add(listener);
  return () => {
    mine.delete(listener);
  };
}

/** Whether a dispatcher of this process watches `db`'s deliveries (and so hears its commits without a NOTIFY). */
export function hasLocalDeliveryWatchers(db: object): boolean {
  return (local.get(db)?.size ?? 0) > 0;
}

/** A commit on `db` inserted deliveries: tell this process's dispatchers now. */
export function wakeLocalDeliveries(db: object): void {
  const listeners = local.get(db);
  if (!listeners) return;
  for (const listener of [...listeners]) {
    try {
      listener();
    } catch {
      // A listener's failure is its own; the others still hear of it.
    }
  }
}

/**
 * A dispatcher of this process that takes the deliveries this process's commits claim for it
 * (`PushDeliveryQueue.handOff`): the owner and lease they are claimed with, and where they go once durable.
 */
export interface DeliveryTaker {
  owner: string;
  leaseMs: number;
  take(deliveries: HandedPushDelivery[]): void;
}

const takers = new WeakMap<object, DeliveryTaker[]>();

/** Has the commits on `db` in this process hand their free deliveries to `taker`. Returns the function that stops it. */
export function onHandedDeliveries(db: object, taker: DeliveryTaker): () => void {
  let list = takers.get(db);
  if (!list) {
    list = [];
    takers.set(db, list);
  }
  const mine = list;
  mine.push(taker);
  return () => {
    const index = mine.indexOf(taker);
    if (index >= 0) mine.splice(index, 1);
  };
}

/** The taker a commit on `db` hands off to now (the first registered of those still there), if any. */
export function deliveryTakerOf(db: object): DeliveryTaker | undefined {
  return takers.get(db)?.[0];
}

/**
 * Hands a commit's claimed deliveries (built by `build`) to `taker`, after the commit: nothing that fails
 * here may reach the writer's caller or the process, so a failure is swallowed and their leases lapse
 * (another dispatcher retakes them).
 */
export function handDeliveries(taker: DeliveryTaker, build: () => HandedPushDelivery[]): void {
  try {
    const deliveries = build();
    if (deliveries.length > 0) taker.take(deliveries);
  } catch {
    // Their claims lapse and another dispatcher retakes them.
  }
}
