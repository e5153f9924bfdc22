import { parentPort, workerData } from "node:worker_threads";
import {
  createPushDispatcher,
  type HandedPushDelivery,
  type Logger,
  type PushDeliveryQueue,
  type PushDispatcherSetup,
} from "@a2a-partner/a2a-core";
import type { Database } from "../database.js";
import { PostgresPushDeliveryQueue } from "../push/postgres-push-delivery-queue.js";
import type { DispatchThreadStart, FromDispatchThread, ToDispatchThread } from "./messages.js";
import { WorkerPushTelemetry } from "./worker-push-telemetry.js";

/** What a dispatch thread delivers with, made on the thread by the embedder's setup. */
export interface PushDispatchWorkerSetup {
  /** The thread's own pool on the same PostgreSQL database (a few connections: claims, completes, secrets). */
  db: Database;
  /** What the handler would deliver with: signing secrets, horizon, retry wait, SSRF guard, sender. */
  push: PushDispatcherSetup["push"];
  /** Where the dispatcher logs (failed attempts at info, give-ups at warn). */
  logger: Logger;
  /** Closes what the setup opened (the pool included), once the dispatcher has stopped. */
  close(): Promise<void>;
}

/**
 * The body of a `PushDispatchThread`'s worker module: runs `setup` with the `data` the thread was
 * started with, then the push dispatcher on the result until the thread is told to close. Throws when not
 * run on a worker thread.
 *
 * ```ts
 * // push-worker.ts
 * runPushDispatchWorker(async (data: { url: string }) => {
 *   const db = await openDatabase({ url: data.url, pool: { max: 4 } });
 *   return { db, push: { signingSecrets, fetch: guardedPushFetch() }, logger, close: () => db.close() };
 * });
 * ```
 */
export async function runPushDispatchWorker<Data>(
  setup: (data: Data) => PushDispatchWorkerSetup | Promise<PushDispatchWorkerSetup>,
): Promise<void> {
  const port = parentPort;
  if (!port) throw new Error("runPushDispatchWorker runs on a PushDispatchThread's worker thread");
  const start = workerData as DispatchThreadStart;
  const tell = (message: FromDispatchThread) => port.postMessage(message);
  const { db, push, logger, close } = await setup(start.data as Data);
  const queue = new PostgresPushDeliveryQueue(db);
  /** Wake-ups the starting thread forwards (its own commits, told without a NOTIFY). */
  const forwarded = new Set<() => void>();
  /**
   * Where deliveries the starting thread's commits claimed for this dispatcher go. Kept after the
   * dispatcher stops taking them: those already on their way reach it while it closes, and it releases them.
   */
  let handedTo: ((deliveries: HandedPushDelivery[]) => void) | undefined;
  const deliveries: PushDeliveryQueue = {
    claim: (owner, limit, leaseMs, options) => queue.claim(owner, limit, leaseMs, options),
    complete: (owner, delivery, leaseMs) => queue.complete(owner, delivery, leaseMs),
    retry: (owner, delivery, retryAt, lastError) => queue.retry(owner, delivery, retryAt, lastError),
    release: (owner, delivery) => queue.release(owner, delivery),
    giveUp: (owner, delivery, reason) => queue.giveUp(owner, delivery, reason),
    nextDueAt: () => queue.nextDueAt(),
    watch(listener) {
      const stop = queue.watch(listener);
      forwarded.add(listener);
      return () => {
        forwarded.delete(listener);
        stop();
      };
    },
    // The commits are the starting thread's: it claims for this dispatcher and posts what it claimed.
    handOff(owner, leaseMs, listener) {
      handedTo = listener;
      tell({ kind: "hand-off", owner, leaseMs });
      return () => tell({ kind: "hand-off-stop" });
    },
  };
  const telemetry = new WorkerPushTelemetry(tell);
  const dispatcher = createPushDispatcher({ deliveries, instanceId: start.instanceId, logger, telemetry, push });

  port.on("message", (message: ToDispatchThread) => {
    if (message.kind === "wake") {
      for (const listener of [...forwarded]) listener();
    } else if (message.kind === "handed") {
      handedTo?.(message.deliveries);
    } else if (message.kind === "close") {
      void (async () => {
        try {
          await dispatcher.close(message.graceMs);
          telemetry.close();
          await queue.close();
          await close();
        } catch (error) {
          logger.warn({ err: error }, "push dispatch thread: closing its store failed");
        } finally {
          tell({ kind: "closed" });
        }
      })();
    }
  });
  dispatcher.start();
}
