import { Worker } from "node:worker_threads";
import { type HandedPushDelivery, PushTelemetry } from "@a2a-partner/a2a-core";
import type { PostgresPushDeliveryQueue } from "@a2a-partner/postgres-store";
import type { Logger } from "../logger.ts";
import { type MeasurementsReport, recordReport } from "./dispatch-thread-telemetry.ts";
import type { PushSettings } from "./push-settings.ts";

/** What the dispatch thread is started with (dispatch-thread-worker.ts). */
export interface DispatchThreadData {
  databaseUrl: string;
  /** DATABASE_LISTEN_URL, when set: its LISTEN connections go there. */
  listenUrl?: string | undefined;
  /** DATABASE_POOLER=transaction: no named statements or startup options on `databaseUrl`. */
  transactionPooler?: boolean | undefined;
  instanceId: string;
  logLevel: string;
  logFormat: "json" | "pretty" | undefined;
  cacheChangesChannel: string;
  push: PushSettings;
}

/** Messages to the dispatch thread: wake-ups, deliveries this thread's commits claimed for it, close. */
export type ToDispatchThread =
  | { kind: "wake" }
  | { kind: "handed"; deliveries: HandedPushDelivery[] }
  | { kind: "close"; graceMs: number };
/** Messages from it: its dispatcher takes hand-offs (as whom, for how long) or no longer does, closed, figures. */
export type FromDispatchThread =
  | { kind: "hand-off"; owner: string; leaseMs: number }
  | { kind: "hand-off-stop" }
  | { kind: "closed" }
  | MeasurementsReport;

/**
 * A dispatch thread that died is started again after 1 s, doubling up to 30 s while each one dies within
 * a minute (its claims lapse meanwhile, as a dead instance's would).
 */
const RESTART = { firstMs: 1_000, maxMs: 30_000, healthyAfterMs: 60_000 } as const;
/** After its grace, a closing thread gets this long to hand back its last measurements and close its pool. */
const CLOSE_MARGIN_MS = 2_000;

/**
 * The reference server's push dispatcher on a worker thread of its own (PostgreSQL only): delivering
 * notifications — signing, the POSTs, the claims and completes — then never holds up the event loop that
 * answers requests and writes the tasks' events. It hears this process's commits from the server's thread
 * (forwarded, no NOTIFY) and other instances' through its own LISTEN. The deliveries this thread's commits
 * can claim for it (`handOff`) are posted to it as they commit, so most go without a claim's round trip.
 * Its measurements are recorded on the server's thread, where the OpenTelemetry SDK runs. A thread that
 * dies is logged and started again.
 */
export class PushDispatchThread {
  private worker: Worker | undefined;
  private closing = false;
  private wakePending = false;
  private restart: ReturnType<typeof setTimeout> | undefined;
  private restartMs: number = RESTART.firstMs;
  private readonly stopWatching: () => void;
  private stopHandOff: (() => void) | undefined;
  private readonly deliveries: PostgresPushDeliveryQueue;
  private readonly telemetry = new PushTelemetry();
  private readonly data: DispatchThreadData;
  private readonly logger: Logger;

  constructor(data: DispatchThreadData, deliveries: PostgresPushDeliveryQueue, logger: Logger) {
    this.data = data;
    this.logger = logger;
    this.deliveries = deliveries;
    this.stopWatching = deliveries.watchLocal(() => this.wake());
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
    this.stopHandOff = this.deliveries.handOff(as.owner, as.leaseMs, (deliveries) =>
      worker.postMessage({ kind: "handed", deliveries } satisfies ToDispatchThread),
    );
  }

  private spawn(): void {
    let worker: Worker;
    try {
      worker = new Worker(new URL("./dispatch-thread-worker.ts", import.meta.url), { workerData: this.data });
    } catch (error) {
      this.logger.error({ err: error }, "push dispatch thread could not start");
      this.restartLater();
      return;
    }
    this.worker = worker;
    const startedAt = Date.now();
    worker.once("online", () => this.logger.info({ threadId: worker.threadId }, "push dispatch thread started"));
    worker.on("message", (message: FromDispatchThread) => {
      if (message.kind === "measurements") recordReport(message, this.telemetry);
      else if (message.kind === "hand-off") this.handOff(worker, message);
      else if (message.kind === "hand-off-stop") this.handOff(undefined);
    });
    worker.on("error", (error) => this.logger.error({ err: error }, "push dispatch thread failed"));
    worker.on("exit", (code) => {
      if (this.worker === worker) {
        this.worker = undefined;
        // Nobody would send what this thread's commits claimed for it (until their leases lapsed).
        this.handOff(undefined);
      }
      if (this.closing) return;
      if (Date.now() - startedAt >= RESTART.healthyAfterMs) this.restartMs = RESTART.firstMs;
      this.logger.error(
        { exitCode: code, restartInMs: this.restartMs },
        "push dispatch thread ended; starting it again",
      );
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
