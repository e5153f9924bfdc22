import type { HandedPushDelivery, PushDeliveryQueue } from "../../ports/push-deliveries.js";
import { DeliveryRuns } from "./delivery-runs.js";
import { PushAttempts, type PushAttemptsOptions } from "./push-attempts.js";
import { pause, Wakeup } from "./wakeup.js";

/** What the dispatcher needs besides what each attempt does (it hands these options to `PushAttempts`). */
export interface PushDispatcherOptions extends PushAttemptsOptions {
  deliveries: PushDeliveryQueue;
  /** This instance's id: the owner of its claims. */
  owner: string;
  horizonMs: number;
  /** The longest backoff wait between two attempts. Default `BACKOFF_CAP_MS` (1 h). */
  maxRetryWaitMs?: number;
  /** Deliveries in flight at once (each holds a connection). Default `PUSH_DISPATCH.maxInFlight`. */
  maxInFlight?: number;
  /** How often the queue is looked at without a wake-up (expired leases of dead instances). */
  pollIntervalMs?: number;
  random?: () => number;
}

/** A wake-up waits this long before its claim, so the commits of that moment share it. */
const COALESCE_MS = 1;

/** The dispatcher's fixed settings (docs/design/push-delivery.md, "How deliveries are sent"). */
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
  private readonly wakeup = new Wakeup();
  private readonly runs: DeliveryRuns;
  /** Aborted when `close` begins: the loop stops claiming. */
  private readonly stopping = new AbortController();
  /** Aborted when the grace is over: attempts still under way are dropped and left to their leases. */
  private readonly abandoning = new AbortController();
  private unwatch: (() => void) | undefined;
  private stopHandOff: (() => void) | undefined;
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
    this.runs = new DeliveryRuns({
      deliveries: options.deliveries,
      owner: options.owner,
      attempts: new PushAttempts(options, this.abandoning.signal),
      logger: options.logger,
      telemetry: options.telemetry,
      now: options.now,
      random: options.random ?? Math.random,
      horizonMs: options.horizonMs,
      maxRetryWaitMs: options.maxRetryWaitMs,
      leaseMs: this.leaseMs,
      maxInFlight: this.maxInFlight,
      stopping: this.stopping.signal,
      wakeLoop: () => this.wakeup.wake(),
      wakes: () => this.wakes,
      retryAt: (at) => {
        if (this.knownDueAt !== undefined) this.knownDueAt = Math.min(this.knownDueAt, at);
      },
    });
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
   * Deliveries this instance's commits claimed for it (`PushDeliveryQueue.handOff`): each config's start
   * a run, join the run ahead of them, or are given back (see `DeliveryRuns.accept`).
   */
  accept(handed: readonly HandedPushDelivery[]): void {
    this.runs.accept(handed);
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
    this.runs.giveBackWaiting();
    const finished = (async () => {
      await this.loop;
      await this.runs.settled();
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
        // Runs waiting for a slot go first (they are claimed already), unless their tenants are above their share.
        const { limit, skip } = this.runs.claimRoom();
        if (limit <= 0) {
          // A finished delivery wakes the loop.
          await this.wakeup.sleep(this.pollIntervalMs);
          continue;
        }
        const claimed = await deliveries.claim(owner, limit, this.leaseMs, skip);
        const sending = this.runs.sending;
        for (const delivery of claimed) this.runs.startRun([delivery]);
        // A full claim that only waits (a queue that cannot pass over workspaces) sleeps like a blocked one.
        const started = this.runs.sending > sending;
        // Woken during the claim (another commit): claim again rather than ask when the next one is due.
        if ((claimed.length === limit && started) || this.wakeup.takeWake()) continue;
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
}
