import type { Logger } from "../../ports/logger.js";
import type { PushDelivery, PushDeliveryQueue } from "../../ports/push-deliveries.js";
import type { PushMeasurements } from "../../telemetry/push-telemetry.js";
import { PushAttempts } from "./push-attempts.js";
import { backoffMs, nextAttemptAt } from "./retry-schedule.js";
import { pause, Wakeup } from "./wakeup.js";

export interface PushDispatcherOptions {
  deliveries: PushDeliveryQueue;
  /** This instance's id: the owner of its claims. */
  owner: string;
  send: typeof fetch;
  /** `undefined`: the embedder gave none; deliveries wait unsent (never sent unsigned). */
  signingSecrets: ((workspaceId: string) => Promise<readonly string[]>) | undefined;
  logger: Logger;
  telemetry: PushMeasurements;
  now: () => Date;
  attemptTimeoutMs: number;
  horizonMs: number;
  /** The longest backoff wait between two attempts. Default `BACKOFF_CAP_MS` (1 h). */
  maxRetryWaitMs?: number;
  /** Deliveries in flight at once (each holds a connection). Default `PUSH_DISPATCH.maxInFlight`. */
  maxInFlight?: number;
  /** How often the queue is looked at without a wake-up (expired leases of dead instances). */
  pollIntervalMs?: number;
  random?: () => number;
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

/** A wake-up waits this long before its claim, so the commits of that moment share it. */
const COALESCE_MS = 1;

/** The dispatcher's fixed settings (docs/operations.md, "Push notifications"). */
export const PUSH_DISPATCH = {
  /** Deliveries one instance has in flight at once; one config has at most one. */
  maxInFlight: 256,
  /** The queue is polled this often even without a wake-up, so a dead instance's expired claims are retaken. */
  pollIntervalMs: 5_000,
  /** A claim outlives one attempt's timeout by this much: signing, the store's answer, a slow event loop. */
  leaseMarginMs: 10_000,
  /** After a store error the loop pauses this long (and logs) instead of giving up. */
  errorPauseMs: 1_000,
  /** Something is due yet nothing could be claimed (its config's earlier event is in flight): look again after this. */
  blockedRecheckMs: 1_000,
} as const;

/**
 * Delivers the durable push queue from this instance: claims due deliveries (leases owned by this
 * instance), sends them with at most `maxInFlight` in flight, records each outcome (delivered → the
 * config's next event goes at once; failed → retried with backoff; past the horizon → given up), and
 * never throws out of its loop. Woken by the queue's `watch`, it sleeps until the next delivery falls
 * due at most, and polls now and then so leases of dead instances are retaken.
 */
export class PushDispatcher {
  private readonly options: PushDispatcherOptions;
  private readonly leaseMs: number;
  private readonly maxInFlight: number;
  private readonly pollIntervalMs: number;
  private readonly random: () => number;
  private readonly attempts: PushAttempts;
  private readonly wakeup = new Wakeup();
  private readonly inFlight = new Set<Promise<void>>();
  /** Completes and releases under way (a run does not wait for its completes): awaited by `close`. */
  private readonly recording = new Set<Promise<void>>();
  /** Runs of claimed deliveries waiting for a free slot, oldest first. */
  private readonly waiting: Array<{ deliveries: PushDelivery[]; since: number }> = [];
  /** Aborted when `close` begins: the loop stops claiming. */
  private readonly stopping = new AbortController();
  /** Aborted when the grace is over: attempts still under way are dropped and left to their leases. */
  private readonly abandoning = new AbortController();
  private unwatch: (() => void) | undefined;
  private stopHandOff: (() => void) | undefined;
  /** The timer that releases runs waiting too long for a slot. */
  private sweep: ReturnType<typeof setTimeout> | undefined;
  /** The queue's wake-ups so far: a chain that heard one during its `complete` has the loop look again. */
  private wakes = 0;
  /**
   * When something may fall due at the earliest, as last learnt (`nextDueAt`, or a retry recorded here):
   * the loop sleeps until then without asking the store after every claim. Forgotten whenever a sleep
   * runs to its end, so it is asked again at least every poll interval.
   */
  private knownDueAt: number | undefined;
  private loop: Promise<void> | undefined;
  private closing: Promise<void> | undefined;

  constructor(options: PushDispatcherOptions) {
    this.options = options;
    this.leaseMs = options.attemptTimeoutMs + PUSH_DISPATCH.leaseMarginMs;
    this.maxInFlight = Math.max(1, options.maxInFlight ?? PUSH_DISPATCH.maxInFlight);
    this.pollIntervalMs = options.pollIntervalMs ?? PUSH_DISPATCH.pollIntervalMs;
    this.random = options.random ?? Math.random;
    this.attempts = new PushAttempts(options, this.abandoning.signal);
  }

  start(): void {
    if (this.loop || this.closing) return;
    const { deliveries, owner } = this.options;
    this.unwatch = deliveries.watch(() => {
      this.wakes++;
      this.wakeup.wake();
    });
    this.stopHandOff = deliveries.handOff?.(owner, this.leaseMs, (handed) => this.accept(handed));
    this.loop = this.run();
  }

  /**
   * Deliveries this instance's commits claimed for it (`PushDeliveryQueue.handOff`): each config's go out
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

  /**
   * Stops claiming, lets attempts under way finish for up to `graceMs` (each records its outcome), then
   * drops the rest: their claims lapse and another instance (or this one restarted) retakes them.
   */
  close(graceMs: number): Promise<void> {
    this.closing ??= this.shutDown(graceMs);
    return this.closing;
  }

  private async shutDown(graceMs: number): Promise<void> {
    this.stopping.abort();
    this.unwatch?.();
    this.stopHandOff?.();
    this.wakeup.wake();
    clearTimeout(this.sweep);
    for (const run of this.waiting.splice(0)) for (const held of run.deliveries) void this.release(held, CLOSING);
    const finished = (async () => {
      await this.loop;
      await Promise.allSettled([...this.inFlight]);
      await Promise.allSettled([...this.recording]);
    })();
    await Promise.race([finished, pause(graceMs)]);
    this.abandoning.abort();
    // Dropped attempts end at once; a store call under way gets a moment to answer.
    await Promise.race([finished, pause(PUSH_DISPATCH.errorPauseMs)]);
  }

  private async run(): Promise<void> {
    const { deliveries, owner, logger } = this.options;
    while (!this.stopping.signal.aborted) {
      try {
        // Runs waiting for a slot go first: they are claimed already.
        const free = this.maxInFlight - this.inFlight.size - this.waiting.length;
        if (free <= 0) {
          // A finished delivery wakes the loop.
          await this.wakeup.sleep(this.pollIntervalMs);
          continue;
        }
        const claimed = await deliveries.claim(owner, free, this.leaseMs);
        for (const delivery of claimed) this.startRun([delivery]);
        // Woken during the claim (another commit): claim again rather than ask when the next one is due.
        if (claimed.length === free || this.wakeup.takeWake()) continue;
        if (await this.wakeup.sleep(await this.sleepMs())) {
          // Woken: let the commits of this moment come in too, so a burst costs one claim, not one each.
          await pause(COALESCE_MS, this.stopping.signal);
          this.wakeup.takeWake();
        } else {
          this.knownDueAt = undefined;
        }
      } catch (error) {
        logger.error({ err: error }, "push dispatcher: the delivery queue failed; retrying shortly");
        await pause(PUSH_DISPATCH.errorPauseMs, this.stopping.signal);
      }
    }
  }

  /** Until the next delivery falls due, at most the poll interval (the store is asked when that is not known). */
  private async sleepMs(): Promise<number> {
    const { now } = this.options;
    if (this.knownDueAt === undefined || this.knownDueAt <= now().getTime()) {
      const due = await this.options.deliveries.nextDueAt();
      const at = now().getTime();
      if (due === undefined) this.knownDueAt = at + this.pollIntervalMs;
      else if (due.getTime() > at) this.knownDueAt = due.getTime();
      // Due yet not claimable (its config's earlier event is in flight): look again a little later.
      else this.knownDueAt = at + Math.min(PUSH_DISPATCH.blockedRecheckMs, this.pollIntervalMs);
    }
    return Math.min(Math.max(0, this.knownDueAt - now().getTime()), this.pollIntervalMs);
  }

  /**
   * Sends a run of one config's claimed deliveries, in order, in one slot; without a free slot the run
   * waits for one (past `WAITING_PER_SLOT` runs a slot, or waiting longer than `WAIT_LIMIT_MS`, it is
   * released to be claimed again instead, rather than held towards the end of its lease).
   */
  private startRun(deliveries: PushDelivery[]): void {
    if (deliveries.length === 0) return;
    if (this.stopping.signal.aborted) {
      for (const held of deliveries) void this.release(held, CLOSING);
    } else if (this.inFlight.size < this.maxInFlight) {
      const run = this.deliverRun(deliveries).finally(() => {
        const wasFull = this.inFlight.size >= this.maxInFlight;
        this.inFlight.delete(run);
        if (this.startWaiting()) return;
        // A slot freed while the loop waited for one: wake it.
        if (wasFull) this.wakeup.wake();
      });
      this.inFlight.add(run);
    } else if (this.waiting.length < this.maxInFlight * WAITING_PER_SLOT) {
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
      if (this.stopping.signal.aborted) {
        await Promise.all([delivery, ...rest].map((held) => this.release(held, CLOSING)));
        return;
      }
      const wakesBefore = this.wakes;
      if (!(await this.deliver(delivery))) {
        // Released before the loop looks, or it would find them still held.
        await Promise.all(rest.map((held) => this.release(held, "not sent: an earlier event is not delivered yet")));
        this.wakeup.wake();
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
    const outcome = await this.attempts.attempt(delivery);
    if (outcome.kind === "abandoned") return false;
    if (outcome.kind === "delivered") {
      telemetry.delivered(now().getTime() - Date.parse(delivery.durableAt));
      return true;
    }
    try {
      telemetry.failed(outcome.reason);
      const wait = backoffMs(delivery.attempt, outcome.retryAfterMs, this.random, this.options.maxRetryWaitMs);
      const retryAt = nextAttemptAt(delivery.durableAt, this.options.horizonMs, now(), wait);
      if (retryAt) {
        await deliveries.retry(owner, delivery, retryAt, outcome.error);
        if (this.knownDueAt !== undefined) this.knownDueAt = Math.min(this.knownDueAt, retryAt.getTime());
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
      .complete(owner, delivery, this.leaseMs)
      .then((next) => {
        if (next) this.startRun([next]);
        else if (wakesBefore !== undefined && this.wakes !== wakesBefore) this.wakeup.wake();
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
