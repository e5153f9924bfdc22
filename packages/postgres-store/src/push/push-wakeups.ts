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
