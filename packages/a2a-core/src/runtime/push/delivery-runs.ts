import type { Logger } from "../../ports/logger.js";
import type { PushDelivery, PushDeliveryQueue } from "../../ports/push-deliveries.js";
import type { PushMeasurements } from "../../telemetry/push-telemetry.js";
import type { PushAttempts } from "./push-attempts.js";
import { backoffMs, nextAttemptAt } from "./retry-schedule.js";

/** What the runs need of their dispatcher: its queue, owner and settings, and three ways to reach its loop. */
export interface DeliveryRunsOptions {
  deliveries: PushDeliveryQueue;
  owner: string;
  attempts: PushAttempts;
  logger: Logger;
  telemetry: PushMeasurements;
  now: () => Date;
  random: () => number;
  horizonMs: number;
  maxRetryWaitMs: number | undefined;
  leaseMs: number;
  maxInFlight: number;
  /** Aborted when the dispatcher begins to close: nothing more is sent, what is held is given back. */
  stopping: AbortSignal;
  /** Wakes the dispatcher's loop (a slot came free while it waited, or something to claim). */
  wakeLoop: () => void;
  /** The queue's wake-ups so far (a commit heard while a `complete` was under way). */
  wakes: () => number;
  /** A failed attempt is due again at this time (epoch ms): the loop must not sleep past it. */
  retryAt: (at: number) => void;
}

/** Why a delivery this dispatcher held went back unsent when it closed (kept as its `last_error`). */
const CLOSING = "not sent: instance closing";

/** Why a claimed delivery went back unsent when no slot came free in time (kept as its `last_error`). */
const NO_SLOT = "not sent: no free delivery slot";

/**
 * The longest a claimed run waits for a free slot before it is released instead (looked at when a slot
 * frees, and by a timer at this interval): well inside the lease of its first delivery
 * (`PUSH_DISPATCH.leaseMarginMs` beyond one attempt). Each later one's lease is renewed by the `complete`
 * of the one before it.
 */
const WAIT_LIMIT_MS = 2_000;
/** Runs that may wait for a slot, per slot: a burst of commits waits; a receiver that stalls them all does not. */
const WAITING_PER_SLOT = 4;

/**
 * The dispatcher's slots: runs of one config's claimed deliveries (one claimed by the loop, or what a
 * commit handed off), each sent in order, at most `maxInFlight` runs sending at once, the others waiting
 * for a slot. A run holds its slot only for its POSTs; completes, retries and releases are recorded
 * meanwhile and awaited by `settled` at close.
 */
export class DeliveryRuns {
  private readonly inFlight = new Set<Promise<void>>();
  /** Completes and releases under way (a run does not wait for its completes): awaited by `close`. */
  private readonly recording = new Set<Promise<void>>();
  /** Runs of claimed deliveries waiting for a free slot, oldest first. */
  private readonly waiting: Array<{ deliveries: PushDelivery[]; since: number }> = [];
  /** The timer that releases runs waiting too long for a slot. */
  private sweep: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: DeliveryRunsOptions) {}

  /** Slots taken or spoken for (runs sending, and runs waiting: they are claimed already). */
  get busy(): number {
    return this.inFlight.size + this.waiting.length;
  }

  /**
   * Deliveries a commit claimed for this dispatcher (`PushDeliveryQueue.handOff`): each config's go out
   * at once, one after another, in a slot of their own (or the next free one).
   */
  accept(handed: readonly PushDelivery[]): void {
    const byConfig = new Map<string, PushDelivery[]>();
    for (const delivery of handed) {
      const config = `${delivery.event.taskId}/${delivery.config.id}`;
      const run = byConfig.get(config);
      if (run) run.push(delivery);
      else byConfig.set(config, [delivery]);
    }
    for (const run of byConfig.values()) this.startRun(run.sort((a, b) => a.event.seq - b.event.seq));
  }

  /** Closing: the runs still waiting for a slot are given back at once. */
  giveBackWaiting(): void {
    clearTimeout(this.sweep);
    for (const run of this.waiting.splice(0)) for (const held of run.deliveries) void this.release(held, CLOSING);
  }

  /** Once every run sending now has ended and every outcome under way is recorded. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
    await Promise.allSettled([...this.recording]);
  }

  /**
   * Sends a run of one config's claimed deliveries, in order, in one slot; without a free slot the run
   * waits for one (past `WAITING_PER_SLOT` runs a slot, or waiting longer than `WAIT_LIMIT_MS`, it is
   * released to be claimed again instead, rather than held towards the end of its lease).
   */
  startRun(deliveries: PushDelivery[]): void {
    if (deliveries.length === 0) return;
    if (this.options.stopping.aborted) {
      for (const held of deliveries) void this.release(held, CLOSING);
    } else if (this.inFlight.size < this.options.maxInFlight) {
      const run = this.deliverRun(deliveries).finally(() => {
        // Runs waiting count as taken: the loop claims only for slots nobody waits for.
        const wasFull = this.busy >= this.options.maxInFlight;
        this.inFlight.delete(run);
        if (this.startWaiting()) return;
        // A slot freed while the loop waited for one: wake it.
        if (wasFull) this.options.wakeLoop();
      });
      this.inFlight.add(run);
    } else if (this.waiting.length < this.options.maxInFlight * WAITING_PER_SLOT) {
      this.waiting.push({ deliveries, since: this.options.now().getTime() });
      this.sweepWaitingLater();
    } else {
      for (const held of deliveries) void this.release(held, NO_SLOT);
    }
  }

  /** Starts the oldest run waiting for a slot, if any (true), releasing those that waited too long. */
  private startWaiting(): boolean {
    this.releaseOverdue();
    const next = this.waiting.shift();
    if (!next) return false;
    this.startRun(next.deliveries);
    return true;
  }

  /** Releases the runs that have waited past `WAIT_LIMIT_MS` (oldest first, so they are at the front). */
  private releaseOverdue(): void {
    const now = this.options.now().getTime();
    while (this.waiting.length > 0 && now - (this.waiting[0]?.since ?? now) > WAIT_LIMIT_MS) {
      for (const held of this.waiting.shift()?.deliveries ?? []) void this.release(held, NO_SLOT);
    }
  }

  /** While runs wait, looks at them every `WAIT_LIMIT_MS` even if no slot comes free (every receiver stalls). */
  private sweepWaitingLater(): void {
    if (this.sweep) return;
    this.sweep = setTimeout(() => {
      this.sweep = undefined;
      this.releaseOverdue();
      if (this.waiting.length > 0) this.sweepWaitingLater();
    }, WAIT_LIMIT_MS);
    (this.sweep as { unref?: () => void }).unref?.();
  }

  /**
   * Sends each delivery of the run once its predecessor was delivered. A delivered one's `complete` is
   * recorded meanwhile (the receiver has answered, so the next may go; the slot is not held for the store's
   * answer); the last one's hands on its config's next pending delivery, which starts a run of its own.
   * One not delivered (retried later, given up, or dropped at close) ends the run: the rest are released to
   * be claimed in order after it, and the loop looks again (a give-up frees its config's next).
   */
  private async deliverRun(run: PushDelivery[]): Promise<void> {
    for (let index = 0; index < run.length; index++) {
      const delivery = run[index] as PushDelivery;
      const rest = run.slice(index + 1);
      if (this.options.stopping.aborted) {
        await Promise.all([delivery, ...rest].map((held) => this.release(held, CLOSING)));
        return;
      }
      const wakesBefore = this.options.wakes();
      if (!(await this.deliver(delivery))) {
        // Released before the loop looks, or it would find them still held.
        await Promise.all(rest.map((held) => this.release(held, "not sent: an earlier event is not delivered yet")));
        this.options.wakeLoop();
        return;
      }
      this.completeMeanwhile(delivery, rest.length === 0 ? wakesBefore : undefined);
    }
  }

  /**
   * Sends one delivery and records a failed attempt's outcome (retry or give-up); true when the receiver
   * took it (its `complete` is the caller's).
   */
  private async deliver(delivery: PushDelivery): Promise<boolean> {
    const { deliveries, owner, logger, telemetry, now } = this.options;
    const outcome = await this.options.attempts.attempt(delivery);
    if (outcome.kind === "abandoned") return false;
    if (outcome.kind === "delivered") {
      telemetry.delivered(now().getTime() - Date.parse(delivery.durableAt));
      return true;
    }
    try {
      telemetry.failed(outcome.reason);
      const wait = backoffMs(delivery.attempt, outcome.retryAfterMs, this.options.random, this.options.maxRetryWaitMs);
      const retryAt = nextAttemptAt(delivery.durableAt, this.options.horizonMs, now(), wait);
      if (retryAt) {
        await deliveries.retry(owner, delivery, retryAt, outcome.error);
        this.options.retryAt(retryAt.getTime());
        logger.info({ ...identify(delivery), error: outcome.error, retryInMs: wait }, "push attempt failed; retrying");
      } else {
        await deliveries.giveUp(owner, delivery, outcome.error);
        telemetry.givenUp();
        logger.warn({ ...identify(delivery), lastError: outcome.error }, "push delivery given up past the horizon");
      }
    } catch (error) {
      // Its claim lapses and the delivery is retaken: at least once, duplicates dropped by webhook-id.
      logger.error({ ...identify(delivery), err: error }, "push dispatcher: could not record a delivery's outcome");
    }
    return false;
  }

  /**
   * Records a delivered one's `complete` without holding its slot. The config's next delivery it claims
   * starts a run (a next one the run holds already is not handed back, only its lease renewed).
   * `wakesBefore` (the wake-ups counted when its attempt began) for the last of a run: with no next, a
   * wake-up heard meanwhile has the loop look again (a commit during the `complete` may have been missed by
   * both it and a concurrent claim).
   */
  private completeMeanwhile(delivery: PushDelivery, wakesBefore: number | undefined): void {
    const { deliveries, owner, logger } = this.options;
    const recorded = deliveries
      .complete(owner, delivery, this.options.leaseMs)
      .then((next) => {
        if (next) this.startRun([next]);
        else if (wakesBefore !== undefined && this.options.wakes() !== wakesBefore) this.options.wakeLoop();
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
   * config failed): claimable again at once, rather than at the end of its lease. `reason` is kept as its
   * last error by a queue without `release`. Awaited by `close`, like the completes.
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

/** What a log line says of a delivery: never its URL, token or credentials. */
function identify(delivery: PushDelivery) {
  return {
    taskId: delivery.event.taskId,
    configId: delivery.config.id,
    seq: delivery.event.seq,
    attempts: delivery.attempt,
  };
}
