import { Worker } from "node:worker_threads";
import { type Logger, type PushMeasurements, PushTelemetry } from "@a2a-partner/a2a-core";
import type { PostgresPushDeliveryQueue } from "../push/postgres-push-delivery-queue.js";
import type { DispatchThreadStart, FromDispatchThread, ToDispatchThread } from "./messages.js";
import { recordReport } from "./worker-push-telemetry.js";

/** Options of `PushDispatchThread`. */
export interface PushDispatchThreadOptions {
  /**
   * The worker's module: a file that calls `runPushDispatchWorker` (it sets up the thread's own database
   * pool, push options and logger there: functions cannot cross to a thread).
   */
  module: URL | string;
  /** Handed to the module's setup as it is (anything `structuredClone` takes): a database URL, settings. */
  data?: unknown;
  /** This process's name as the holder of its push claims (the handler's `instanceId`). */
  instanceId: string;
  /** This thread's queue, on the store whose commits write the deliveries (`createPostgresStores(...).push.deliveries`). */
  deliveries: PostgresPushDeliveryQueue;
  /** Where the thread's starts, deaths and restarts are told. */
  logger: Logger;
  /** Where the thread's measurements are recorded, on this thread. Default: a2a-core's `PushTelemetry`. */
  telemetry?: PushMeasurements;
}

/**
 * A dispatch thread that died is started again after 1 s, doubling up to 30 s while each one dies within
 * a minute (its claims lapse meanwhile, as a dead instance's would).
 */
const RESTART = { firstMs: 1_000, maxMs: 30_000, healthyAfterMs: 60_000 } as const;
/** After its grace, a closing thread gets this long to hand back its last measurements and close its pool. */
const CLOSE_MARGIN_MS = 2_000;

/**
 * The push dispatcher on a worker thread of its own (PostgreSQL only; Node's `worker_threads`):
 * delivering notifications — signing, the POSTs, the claims and completes — then never holds up the event
 * loop that answers requests and writes the tasks' events. Create the handler with `push.dispatch: false`
 * and start one of these beside it. The thread hears this process's commits from here (forwarded, no
 * NOTIFY) and other instances' through its own LISTEN; the deliveries this process's commits can claim
 * for it (`handOff`) are posted to it as they commit, so most go without a claim's round trip. Its
 * measurements are recorded here, where an OpenTelemetry SDK would run. A thread that dies is logged and
 * started again.
 */
export class PushDispatchThread {
  private worker: Worker | undefined;
  private closing = false;
  private wakePending = false;
  private restart: ReturnType<typeof setTimeout> | undefined;
  private restartMs: number = RESTART.firstMs;
  private readonly stopWatching: () => void;
  private stopHandOff: (() => void) | undefined;
  private readonly telemetry: PushMeasurements;

  constructor(private readonly options: PushDispatchThreadOptions) {
    this.telemetry = options.telemetry ?? new PushTelemetry();
    this.stopWatching = options.deliveries.watchLocal(() => this.wake());
    this.spawn();
  }

  /** Stops claiming; attempts under way get `graceMs` to finish, the rest are left to their leases. */
  async close(graceMs: number): Promise<void> {
    this.closing = true;
    this.stopWatching();
    this.handOff(undefined);
    clearTimeout(this.restart);
    const worker = this.worker;
    if (!worker) return;
    const closed = new Promise<void>((resolve) => {
      worker.on("message", (message: FromDispatchThread) => message.kind === "closed" && resolve());
      worker.once("exit", () => resolve());
    });
    worker.postMessage({ kind: "close", graceMs } satisfies ToDispatchThread);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([closed, new Promise((resolve) => (timer = setTimeout(resolve, graceMs + CLOSE_MARGIN_MS)))]);
    clearTimeout(timer);
    await worker.terminate();
  }

  /** One message per turn of the event loop, however many of this process's commits it saw. */
  private wake(): void {
    if (this.wakePending || !this.worker) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      this.worker?.postMessage({ kind: "wake" } satisfies ToDispatchThread);
    });
  }

  /** This thread's commits hand their free deliveries to `worker`'s dispatcher, or (undefined) to nobody. */
  private handOff(worker: Worker | undefined, as?: { owner: string; leaseMs: number }): void {
    this.stopHandOff?.();
    this.stopHandOff = undefined;
    if (!worker || !as || this.closing) return;
    this.stopHandOff = this.options.deliveries.handOff(as.owner, as.leaseMs, (deliveries) =>
      worker.postMessage({ kind: "handed", deliveries } satisfies ToDispatchThread),
    );
  }

  private spawn(): void {
    const { logger, module, instanceId, data } = this.options;
    let worker: Worker;
    try {
      worker = new Worker(module, { workerData: { instanceId, data } satisfies DispatchThreadStart });
    } catch (error) {
      logger.error({ err: error }, "push dispatch thread could not start");
      this.restartLater();
      return;
    }
    this.worker = worker;
    const startedAt = Date.now();
    worker.once("online", () => logger.info({ threadId: worker.threadId }, "push dispatch thread started"));
    worker.on("message", (message: FromDispatchThread) => {
      if (message.kind === "measurements") recordReport(message, this.telemetry);
      else if (message.kind === "hand-off") this.handOff(worker, message);
      else if (message.kind === "hand-off-stop") this.handOff(undefined);
    });
    worker.on("error", (error) => logger.error({ err: error }, "push dispatch thread failed"));
    worker.on("exit", (code) => {
      if (this.worker === worker) {
        this.worker = undefined;
        // Nobody would send what this thread's commits claimed for it (until their leases lapsed).
        this.handOff(undefined);
      }
      if (this.closing) return;
      if (Date.now() - startedAt >= RESTART.healthyAfterMs) this.restartMs = RESTART.firstMs;
      logger.error({ exitCode: code, restartInMs: this.restartMs }, "push dispatch thread ended; starting it again");
      this.restartLater();
    });
  }

  private restartLater(): void {
    if (this.closing) return;
    this.restart = setTimeout(() => this.spawn(), this.restartMs);
    this.restart.unref();
    this.restartMs = Math.min(RESTART.maxMs, this.restartMs * 2);
  }
}
