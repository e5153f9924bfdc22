import type { HandedPushDelivery, PushClaimOptions, PushDelivery } from "../../ports/push-deliveries.js";
import { DeliveredSeqs } from "./delivered-seqs.js";
import { FairSlots, type Tenancy, tenancyOf, type Waiter } from "./fair-slots.js";
import { identify, type SendAndRecordOptions, sendAndRecord } from "./send-and-record.js";

/** What the runs need of their dispatcher: its queue, owner and settings, and ways to reach its loop. */
export interface DeliveryRunsOptions extends SendAndRecordOptions {
  leaseMs: number;
  maxInFlight: number;
  /** Aborted when the dispatcher begins to close: nothing more is sent, what is held is given back. */
  stopping: AbortSignal;
  /** Wakes the dispatcher's loop (a slot came free while it waited, or something to claim). */
  wakeLoop: () => void;
  /** The queue's wake-ups so far (a commit heard while a `complete` was under way). */
  wakes: () => number;
}

/** Why a delivery this dispatcher held went back unsent when it closed (kept as its `last_error`). */
const CLOSING = "not sent: instance closing";
/** Why a claimed delivery went back unsent when no slot came free in time (kept as its `last_error`). */
const NO_SLOT = "not sent: no free delivery slot";
/** Why one went back because its config's earlier event was not delivered (kept as its `last_error`). */
const HELD_BACK = "not sent: an earlier event is not delivered yet";

/**
 * The longest a claimed run waits for a free slot before it is released instead (looked at when a slot
 * frees, and by a timer at this interval): well inside the lease of its first delivery
 * (`PUSH_DISPATCH.leaseMarginMs` beyond one attempt). The later ones are held back by the first until its
 * `complete`, which renews the next one's lease in the same statement.
 */
const WAIT_LIMIT_MS = 2_000;
/** Runs that may wait for a slot, per slot: a burst of commits waits; a receiver that stalls them all does not. */
const WAITING_PER_SLOT = 4;

/** One config's deliveries, sent in order in one slot; a commit's hand-off may add to it while it runs. */
interface Run extends Waiter {
  config: string;
  tenancy: Tenancy;
  queue: PushDelivery[];
  /** The highest seq ever put in this run. */
  highest: number;
}

/**
 * The dispatcher's slots: runs of one config's claimed deliveries (one claimed by the loop, or what a
 * commit handed off), each sent in order, at most `maxInFlight` runs sending at once, shared fairly between
 * workspaces and receivers (`FairSlots`), the others waiting for a slot. A run holds its slot only for its
 * POSTs; completes and releases are recorded meanwhile and awaited by `settled` at close.
 */
export class DeliveryRuns {
  private readonly inFlight = new Set<Promise<void>>();
  /** Completes and releases under way (a run does not wait for its completes): awaited by `close`. */
  private readonly recording = new Set<Promise<void>>();
  /** The run (sending or waiting) of each config that has one. */
  private readonly runs = new Map<string, Run>();
  private readonly delivered = new DeliveredSeqs();
  /** The timer that releases runs waiting too long for a slot. */
  private sweep: ReturnType<typeof setTimeout> | undefined;
  /** The slots, shared fairly between workspaces and receivers, and the runs waiting for one. */
  private readonly slots: FairSlots<Run>;

  constructor(private readonly options: DeliveryRunsOptions) {
    this.slots = new FairSlots(options.maxInFlight);
  }

  /** Runs sending now. */
  get sending(): number {
    return this.inFlight.size;
  }

  /** What the loop may claim now (`FairSlots.claimRoom`). */
  claimRoom(): { limit: number; skip?: PushClaimOptions } {
    return this.slots.claimRoom();
  }

  /**
   * Deliveries a commit claimed for this dispatcher (`PushDeliveryQueue.handOff`), each config's in order.
   * Without `after` they start a run. With it (older ones of the config were still this owner's when the
   * commit ran) they join that config's run, or start one if the older one was delivered meanwhile; if
   * it was not (given back, or failed), they are given back too, to be claimed after it.
   */
  accept(handed: readonly HandedPushDelivery[]): void {
    const byConfig = new Map<string, HandedPushDelivery[]>();
    for (const delivery of handed) {
      // A `complete` may have handed it back first (it renews what its owner holds): it went, or goes, then.
      if (this.holdsOrSent(delivery)) continue;
      const config = configOf(delivery);
      const group = byConfig.get(config);
      if (group) group.push(delivery);
      else byConfig.set(config, [delivery]);
    }
    for (const [config, group] of byConfig) {
      group.sort((a, b) => a.event.seq - b.event.seq);
      const after = group[0]?.after;
      const run = this.runs.get(config);
      if (after === undefined || this.delivered.of(config) >= after) {
        if (run) this.extend(run, group);
        else this.startRun(group);
      } else if (run && after <= run.highest && !this.options.stopping.aborted) {
        this.extend(run, group);
      } else {
        void Promise.all(group.map((held) => this.release(held, HELD_BACK))).then(() => this.options.wakeLoop());
      }
    }
  }

  /**
   * Sends a run of one config's claimed deliveries, in order, in one slot; without a free slot the run
   * waits for one (past `WAITING_PER_SLOT` runs a slot, or waiting longer than `WAIT_LIMIT_MS`, it is
   * released to be claimed again instead, rather than held towards the end of its lease).
   */
  startRun(deliveries: PushDelivery[]): void {
    const first = deliveries[0];
    if (!first) return;
    if (this.options.stopping.aborted) {
      for (const held of deliveries) void this.release(held, CLOSING);
      return;
    }
    const run: Run = {
      config: configOf(first),
      tenancy: tenancyOf(first),
      queue: [],
      highest: 0,
      since: this.options.now().getTime(),
    };
    this.extend(run, deliveries);
    if (this.slots.mayTake(run.tenancy)) this.send(run);
    else if (this.slots.waitingCount < this.options.maxInFlight * WAITING_PER_SLOT) {
      this.runs.set(run.config, run);
      this.slots.enqueue(run);
      this.sweepWaitingLater();
    } else {
      for (const held of deliveries) void this.release(held, NO_SLOT);
    }
  }

  /** Closing: the runs still waiting for a slot are given back at once. */
  giveBackWaiting(): void {
    clearTimeout(this.sweep);
    for (const run of this.slots.drain()) this.giveBack(run, CLOSING);
  }

  /** Once every run sending now has ended and every outcome under way is recorded. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.recording]);
  }

  private extend(run: Run, deliveries: readonly PushDelivery[]): void {
    for (const delivery of deliveries) {
      run.queue.push(delivery);
      run.highest = Math.max(run.highest, delivery.event.seq);
    }
  }

  private send(run: Run): void {
    this.runs.set(run.config, run);
    this.slots.take(run.tenancy);
    const sending = this.deliverRun(run).finally(() => {
      if (this.runs.get(run.config) === run) this.runs.delete(run.config);
      // Runs waiting count as taken: the loop claims only for slots nobody waits for.
      const wasFull = this.slots.inUse + this.slots.waitingCount >= this.options.maxInFlight;
      this.slots.free(run.tenancy);
      this.inFlight.delete(sending);
      if (this.startWaiting()) return;
      // A slot freed while the loop waited for one, or that the runs waiting may not have: wake it.
      if (wasFull) this.options.wakeLoop();
    });
    this.inFlight.add(sending);
  }

  /**
   * Starts the waiting run that may take the free slot (fewest held by its workspace, then receiver;
   * oldest first among equals), if any (true), releasing those that waited too long.
   */
  private startWaiting(): boolean {
    this.releaseOverdue();
    const next = this.slots.next();
    if (!next) return false;
    this.send(next);
    return true;
  }

  /** Releases the runs that have waited past `WAIT_LIMIT_MS` (oldest first, so they are at the front). */
  private releaseOverdue(): void {
    const overdue = this.slots.takeOverdue(this.options.now().getTime() - WAIT_LIMIT_MS);
    for (const run of overdue) this.giveBack(run, NO_SLOT);
  }

  /** While runs wait, looks at them every `WAIT_LIMIT_MS` even if no slot comes free (every receiver stalls). */
  private sweepWaitingLater(): void {
    if (this.sweep) return;
    this.sweep = setTimeout(() => {
      this.sweep = undefined;
      this.releaseOverdue();
      if (this.slots.waitingCount > 0) this.sweepWaitingLater();
    }, WAIT_LIMIT_MS);
    (this.sweep as { unref?: () => void }).unref?.();
  }

  /**
   * Sends each delivery of the run once its predecessor was delivered, including those a hand-off adds
   * meanwhile. A delivered one's `complete` is recorded meanwhile (the receiver has answered, so the next
   * may go; the slot is not held for the store's answer); the last one's hands on its config's next
   * pending delivery, which starts a run of its own. One not delivered (retried later, given up, or
   * dropped at close) ends the run: the rest are released to be claimed in order after it, and the loop
   * looks again (a give-up frees its config's next).
   */
  private async deliverRun(run: Run): Promise<void> {
    for (let delivery = run.queue.shift(); delivery; delivery = run.queue.shift()) {
      if (this.options.stopping.aborted) {
        await Promise.all([delivery, ...this.endRun(run)].map((held) => this.release(held, CLOSING)));
        return;
      }
      const wakesBefore = this.options.wakes();
      if (!(await sendAndRecord(this.options, delivery))) {
        // Released before the loop looks, or it would find them still held.
        await Promise.all(this.endRun(run).map((held) => this.release(held, HELD_BACK)));
        this.options.wakeLoop();
        return;
      }
      this.delivered.remember(run.config, delivery.event.seq);
      this.completeMeanwhile(delivery, run.queue.length === 0 ? wakesBefore : undefined);
    }
    // In the same turn as the last `shift`: a hand-off from now on starts a run of its own.
    this.endRun(run);
  }

  /**
   * The run takes no more (a later hand-off starts a run of its own, or is given back if the older one it
   * waits for was not delivered); what it still held.
   */
  private endRun(run: Run): PushDelivery[] {
    if (this.runs.get(run.config) === run) this.runs.delete(run.config);
    return run.queue.splice(0);
  }

  private giveBack(run: Run, reason: string): void {
    for (const held of this.endRun(run)) void this.release(held, reason);
  }

  /** Whether a run here holds `delivery` (or a later one of its config), or delivered it already. */
  private holdsOrSent(delivery: PushDelivery): boolean {
    const config = configOf(delivery);
    const seq = delivery.event.seq;
    return (this.runs.get(config)?.highest ?? 0) >= seq || this.delivered.of(config) >= seq;
  }

  /**
   * Records a delivered one's `complete` without holding its slot. The config's next delivery it hands on
   * starts a run, unless a run here holds it already (the store renewed its lease and handed it back).
   * `wakesBefore` (the wake-ups counted when its attempt began) for the last of a run: with no next, a
   * wake-up heard meanwhile has the loop look again (a commit during the `complete` may have been missed by
   * both it and a concurrent claim).
   */
  private completeMeanwhile(delivery: PushDelivery, wakesBefore: number | undefined): void {
    const { deliveries, owner, logger } = this.options;
    const recorded = deliveries
      .complete(owner, delivery, this.options.leaseMs)
      .then((next) => {
        if (next) {
          // One a run here holds already (handed off behind this one), or sent already, is not sent again.
          if (!this.holdsOrSent(next)) this.startRun([next]);
        } else if (wakesBefore !== undefined && this.options.wakes() !== wakesBefore) this.options.wakeLoop();
      })
      .catch((error: unknown) => {
        // Its claim lapses and it is sent again: at least once, duplicates dropped by webhook-id.
        logger.error({ ...identify(delivery), err: error }, "push dispatcher: could not record a delivery's outcome");
      })
      .finally(() => this.recording.delete(recorded));
    this.recording.add(recorded);
  }

  /**
   * A delivery this dispatcher holds but will not send now (closing, no free slot, or an earlier one of its
   * config not delivered): claimable again at once, rather than at the end of its lease. `reason` is kept
   * as its last error by a queue without `release`. Awaited by `close`, like the completes.
   */
  private release(delivery: PushDelivery, reason: string): Promise<void> {
    const { deliveries, owner, now } = this.options;
    const released = (
      deliveries.release ? deliveries.release(owner, delivery) : deliveries.retry(owner, delivery, now(), reason)
    )
      .catch(() => {
        // Its lease lapses instead.
      })
      .finally(() => this.recording.delete(released));
    this.recording.add(released);
    return released;
  }
}

/** A config's key: deliveries of one config go in one run, in order. */
function configOf(delivery: PushDelivery): string {
  return `${delivery.event.taskId}/${delivery.config.id}`;
}
