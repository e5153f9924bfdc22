import type { PushConfig } from "./push-configs.js";
import type { StoredTaskEvent } from "./task-records.js";

/**
 * One event on its way to one config's receiver. Written by the event log in the same atomic step as the
 * event (so it exists exactly when the event does), removed when the receiver answered 2xx, kept as
 * given up past the horizon.
 */
export interface PushDelivery {
  /**
   * The store's own key (opaque), the same on every attempt. The `webhook-id` a receiver drops duplicates
   * by is not this: the dispatcher derives it from task, seq and config, so it is the same on every store.
   */
  id: string;
  workspaceId: string;
  config: PushConfig;
  event: StoredTaskEvent;
  /** 1 on the first attempt. */
  attempt: number;
  /** ISO-8601 UTC: when the event became durable (lag and the give-up horizon count from here). */
  durableAt: string;
}

/**
 * A delivery a commit handed off (`PushDeliveryQueue.handOff`). `after`: older deliveries of its config
 * were still pending when the commit ran, all held by the same owner; the newest one's seq. It may go only
 * once that one was delivered; otherwise it is given back, to be claimed after it.
 */
export interface HandedPushDelivery extends PushDelivery {
  after?: number;
}

/** What a dispatcher asks of one claim besides its limit. */
export interface PushClaimOptions {
  /**
   * Workspaces whose deliveries to pass over this time: they hold their fair share of the dispatcher's
   * slots already, so theirs could only wait while another's wait behind them. A queue that ignores it
   * stays correct; its claims are only less fair.
   */
  skipWorkspaces?: readonly string[];
  /** Receivers of a workspace (`pushReceiverOf` their config's URL) to pass over this time, for the same reason. */
  skipReceivers?: ReadonlyArray<{ workspace: string; receiver: string }>;
}

/** The authority of a push URL as written (userinfo dropped), lower-cased. */
const AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#]*)/i;

/**
 * The receiver a push URL names, as dispatchers share their slots by it and `skipReceivers` lists it: its
 * host and port as written, lower-cased (a URL that does not parse is its own receiver).
 */
export function pushReceiverOf(url: string): string {
  return (AUTHORITY.exec(url)?.[1] ?? url).toLowerCase();
}

/**
 * The durable queue of deliveries that dispatchers on every instance share. A claim is a lease: a
 * dispatcher that dies (SIGKILL) loses its claims when they expire and another instance retakes them.
 * Per config only the oldest undelivered event is ever claimable, so a receiver sees a task's events in
 * order and one delivery per config is in flight at a time.
 */
export interface PushDeliveryQueue {
  /**
   * Claims up to `limit` due deliveries for `owner` until the store's clock plus `leaseMs`: each the
   * oldest undelivered event of its config, none claimed by a live lease, due now, none of
   * `options.skipWorkspaces`. Increments `attempt`.
   */
  claim(owner: string, limit: number, leaseMs: number, options?: PushClaimOptions): Promise<PushDelivery[]>;
  /**
   * The receiver took it: removes the delivery (only if `owner` still holds it) and claims the same
   * config's next delivery when it is due, in the same step, so a task's events flow without waiting
   * for a wake-up. A next one `owner` holds already (`handOff`) is not claimed again but its lease
   * renewed, and it is handed back too: a dispatcher that holds it in a run (or sent it) ignores it, one
   * that lost track of it (restarted under the same owner) sends it.
   */
  complete(owner: string, delivery: PushDelivery, leaseMs: number): Promise<PushDelivery | undefined>;
  /** A failed attempt: unclaimed and due again at `retryAt` (only if `owner` still holds it). */
  retry(owner: string, delivery: PushDelivery, retryAt: Date, lastError: string): Promise<void>;
  /**
   * Optional: gives a claimed delivery back unsent (only if `owner` still holds it): claimable again at
   * once, the attempt it was claimed for not counted, its last error kept. Without it a dispatcher gives
   * one back with `retry` due now.
   */
  release?(owner: string, delivery: PushDelivery): Promise<void>;
  /**
   * Past the horizon: kept as given up with `reason` and never tried again; the config's next event
   * becomes claimable.
   */
  giveUp(owner: string, delivery: PushDelivery, reason: string): Promise<void>;
  /** When the earliest unclaimed delivery falls due, if any: a dispatcher sleeps until then at most. */
  nextDueAt(): Promise<Date | undefined>;
  /**
   * Calls `listener` when new deliveries may be due (an event committed anywhere, a claim expired is
   * found by polling). Spurious calls are allowed. Returns the function that stops it.
   */
  watch(listener: () => void): () => void;
  /**
   * Optional: from now on, this process's commits claim for `owner` (for `leaseMs`, attempt 1), in the
   * commit itself, each delivery they insert that is free to go at once (nothing older of its config is
   * pending, or all of it is held by `owner` under a live lease: then `after`), and hand them to
   * `listener` once durable, in order per config: the dispatcher sends them without a claim's round trip.
   * The rest stay for `claim`. A handed delivery is held by a lease as a claimed one is, so if nobody
   * sends it (the process dies) another dispatcher retakes it when the lease expires; while an older one
   * of its config is pending it is held back by it, and that one's `complete` renews its lease.
   * Returns the function that stops it; a queue without it is simply claimed from.
   */
  handOff?(owner: string, leaseMs: number, listener: (deliveries: HandedPushDelivery[]) => void): () => void;
}
