import type { HandedPushDelivery, PushClaimOptions, PushDelivery, PushDeliveryQueue } from "@a2a-partner/a2a-core";
import type { Database } from "../database.js";
import { isUuid } from "../is-uuid.js";
import { leaseDuration } from "../tasks/rows.js";
import { CompleteBatches } from "./complete-batches.js";
import {
  CLAIM,
  CLAIM_SKIPPING,
  type ClaimedRow,
  deliveryKey,
  GIVE_UP,
  NEXT_DUE,
  RELEASE,
  RETRY,
  toPushDelivery,
} from "./push-delivery-sql.js";
import { onHandedDeliveries, onLocalDeliveries, PUSH_DELIVERIES_CHANNEL } from "./push-wakeups.js";

/** Deliveries one claim may take, whatever it asks for. */
const MAX_CLAIM = 1000;
/** A failed attempt's error is kept for the record; a receiver's long answer is cut here. */
const MAX_ERROR_LENGTH = 2000;
/** Options of `PostgresPushDeliveryQueue`. */
export interface PostgresPushDeliveryQueueOptions {
  /** How long to wait before trying LISTEN again when it could not start. Default 5000 ms. */
  listenRetryMs?: number;
}

/**
 * The durable queue of push deliveries in PostgreSQL (or PGlite), shared by the dispatchers of every
 * instance on the database: the rows of `push_deliveries` (migration 0008), written by the event log with
 * their events and claimed here under a lease (see push-delivery-sql.ts). `watch` hears of new deliveries
 * from any instance through one LISTEN per queue, and from this process's own commits directly.
 */
export class PostgresPushDeliveryQueue implements PushDeliveryQueue {
  private readonly watchers = new Set<() => void>();
  private readonly completes: CompleteBatches;
  private readonly listenRetryMs: number;
  private stopLocal: (() => void) | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  private starting = false;
  private listenRetry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly db: Database,
    options: PostgresPushDeliveryQueueOptions = {},
  ) {
    this.listenRetryMs = Math.max(10, options.listenRetryMs ?? 5_000);
    this.completes = new CompleteBatches(db);
  }

  async claim(owner: string, limit: number, leaseMs: number, options?: PushClaimOptions): Promise<PushDelivery[]> {
    checkOwner(owner);
    const max = Number.isFinite(limit) ? Math.min(MAX_CLAIM, Math.max(0, Math.floor(limit))) : 0;
    if (max === 0) return [];
    // Only ids that can be a task's workspace: anything else names no delivery here.
    const workspaces = (options?.skipWorkspaces ?? []).filter((id) => isUuid(id));
    const receivers = (options?.skipReceivers ?? []).filter(({ workspace }) => isUuid(workspace));
    const skip = [workspaces, receivers.map(({ workspace }) => workspace), receivers.map(({ receiver }) => receiver)];
    const { rows } =
      workspaces.length + receivers.length > 0
        ? await this.db.query<ClaimedRow>(CLAIM_SKIPPING, [owner, max, leaseDuration(leaseMs), ...skip], {
            name: "a2a_push_claim_skipping",
          })
        : await this.db.query<ClaimedRow>(CLAIM, [owner, max, leaseDuration(leaseMs)], { name: "a2a_push_claim" });
    return rows
      .map(toPushDelivery)
      .sort((a, b) => (a.durableAt < b.durableAt ? -1 : a.durableAt > b.durableAt ? 1 : 0));
  }

  async complete(owner: string, delivery: PushDelivery, leaseMs: number): Promise<PushDelivery | undefined> {
    checkOwner(owner);
    const key = keyOf(delivery);
    if (!key) return undefined;
    return this.completes.complete(owner, leaseMs, key);
  }

  async retry(owner: string, delivery: PushDelivery, retryAt: Date, lastError: string): Promise<void> {
    checkOwner(owner);
    if (!(retryAt instanceof Date) || Number.isNaN(retryAt.getTime()))
      throw new TypeError("retryAt must be a valid Date");
    const key = keyOf(delivery);
    if (!key) return;
    await this.db.query(
      RETRY,
      [owner, key.taskId, key.configId, key.seq, retryAt.toISOString(), errorText(lastError)],
      { name: "a2a_push_retry" },
    );
  }

  async release(owner: string, delivery: PushDelivery): Promise<void> {
    checkOwner(owner);
    const key = keyOf(delivery);
    if (!key) return;
    await this.db.query(RELEASE, [owner, key.taskId, key.configId, key.seq], { name: "a2a_push_release" });
  }

  async giveUp(owner: string, delivery: PushDelivery, reason: string): Promise<void> {
    checkOwner(owner);
    const key = keyOf(delivery);
    if (!key) return;
    const { rows } = await this.db.query(GIVE_UP, [owner, key.taskId, key.configId, key.seq, errorText(reason)]);
    // The config's next delivery may go now: this process's dispatcher hears it at once (others by NOTIFY).
    if (rows.length > 0) this.tellAll();
  }

  async nextDueAt(): Promise<Date | undefined> {
    const { rows } = await this.db.query<{ next: Date | string | null }>(NEXT_DUE, [], { name: "a2a_push_next_due" });
    const next = rows[0]?.next;
    return next === null || next === undefined ? undefined : new Date(next);
  }

  watch(listener: () => void): () => void {
    this.watchers.add(listener);
    if (this.watchers.size === 1) {
      this.stopLocal = onLocalDeliveries(this.db, () => this.tellAll());
      void this.startListening();
    }
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      this.watchers.delete(listener);
      if (this.watchers.size === 0) void this.stopWatching();
    };
  }

  /**
   * Calls `listener` after each commit of this process on this queue's database that inserted deliveries,
   * without a LISTEN: for a dispatcher that runs elsewhere in this process (a worker thread with a pool of
   * its own, whose queue's `watch` hears the other instances). While one is registered, this process's task
   * starts count on it and send no NOTIFY, as they do for a `watch` here. Returns the function that stops it.
   */
  watchLocal(listener: () => void): () => void {
    return onLocalDeliveries(this.db, listener);
  }

  /**
   * This process's commits on this queue's database (the group commit, a task start) claim for `owner` the
   * deliveries they insert that are free to go (nothing older of their config pending), and hand them to
   * `listener` once committed, in order per config. With several registered, the first still registered
   * takes them. The rest are left for `claim` as before (and NOTIFYed). Returns the function that stops it.
   */
  handOff(owner: string, leaseMs: number, listener: (deliveries: HandedPushDelivery[]) => void): () => void {
    checkOwner(owner);
    return onHandedDeliveries(this.db, { owner, leaseMs: leaseDuration(leaseMs), take: listener });
  }

  /** Stops the LISTEN and the local wake-ups; watchers hear nothing more. */
  async close(): Promise<void> {
    this.watchers.clear();
    await this.stopWatching();
  }

  /**
   * LISTEN once for every watcher of this queue. Until it runs (or while its connection is down) a
   * notification may be missed, so watchers are told when it (re)starts and when it drops: they look
   * for themselves. One that cannot start is tried again after `listenRetryMs`.
   */
  private async startListening(): Promise<void> {
    if (this.starting || this.stopListening || this.watchers.size === 0) return;
    this.starting = true;
    try {
      const stop = await this.db.listen(PUSH_DELIVERIES_CHANNEL, () => this.tellAll(), {
        onLost: () => this.tellAll(),
        onReconnect: () => this.tellAll(),
      });
      if (this.watchers.size === 0) {
        await stop();
        return;
      }
      this.stopListening = stop;
      this.tellAll();
    } catch {
      if (this.watchers.size > 0) {
        this.listenRetry = setTimeout(() => void this.startListening(), this.listenRetryMs);
        this.listenRetry.unref?.();
      }
    } finally {
      this.starting = false;
    }
  }

  private async stopWatching(): Promise<void> {
    clearTimeout(this.listenRetry);
    this.listenRetry = undefined;
    this.stopLocal?.();
    this.stopLocal = undefined;
    const stop = this.stopListening;
    this.stopListening = undefined;
    await stop?.().catch(() => undefined);
  }

  private tellAll(): void {
    for (const listener of [...this.watchers]) {
      try {
        listener();
      } catch {
        // A watcher's failure is its own; the others still hear of it.
      }
    }
  }
}

function checkOwner(owner: string): void {
  if (typeof owner !== "string" || owner === "") throw new TypeError("owner must be a non-empty string");
}

/** The row a delivery this queue handed out names; undefined for one it never did. */
function keyOf(delivery: PushDelivery) {
  const key = deliveryKey(delivery.id);
  return key && isUuid(key.taskId) ? key : undefined;
}

function errorText(text: string): string {
  const value = String(text);
  return value.length > MAX_ERROR_LENGTH ? `${value.slice(0, MAX_ERROR_LENGTH - 1)}…` : value;
}
