import { parentPort, workerData } from "node:worker_threads";
import { createPushDispatcher, type HandedPushDelivery, type PushDeliveryQueue } from "@a2a-partner/a2a-core";
import { CacheInvalidation, openDatabase, PostgresPushDeliveryQueue } from "@a2a-partner/postgres-store";
import { postgresPoolOptions } from "../configured-database.ts";
import { createLogger } from "../logger.ts";
import type { DispatchThreadData, FromDispatchThread, ToDispatchThread } from "./dispatch-thread.ts";
import { WorkerPushTelemetry } from "./dispatch-thread-telemetry.ts";
import { pushHandlerOptions } from "./push-handler-options.ts";

// The push dispatcher's thread (dispatch-thread.ts): a pool of its own on the same PostgreSQL database,
// the same signing secrets, SSRF guard, horizon and retry wait as the handler would use, its log lines
// on stderr as the server's, its measurements handed to the server's thread.

/** A claim, the completes' statement, a retry or give-up, a secrets lookup at once (LISTENs have their own). */
const POOL_SIZE = 4;

const data = workerData as DispatchThreadData;
const port = parentPort;
if (!port) throw new Error("dispatch-thread-worker.ts runs as a worker thread");

const logger = createLogger(data.logLevel, { format: data.logFormat }).child({ component: "push" });
const db = await openDatabase({
  url: data.databaseUrl,
  pool: postgresPoolOptions(POOL_SIZE),
  ...(data.listenUrl ? { listenUrl: data.listenUrl } : {}),
  transactionPooler: data.transactionPooler === true,
});
// Rotations reach this thread's cache with their commit, as they reach the server's.
const invalidation = new CacheInvalidation(db, {
  channel: data.cacheChangesChannel,
  onUnavailable: (error) => logger.warn({ err: error }, "cache invalidation unavailable; reading secrets each time"),
});
void invalidation.start();
const queue = new PostgresPushDeliveryQueue(db);
/** Wake-ups the server's thread forwards (its own commits, told without a NOTIFY). */
const forwarded = new Set<() => void>();
/**
 * Where deliveries the server's thread's commits claimed for this dispatcher go. Kept after the dispatcher
 * stops taking them: those already on their way reach it while it closes, and it releases them.
 */
let handedTo: ((deliveries: HandedPushDelivery[]) => void) | undefined;
const tell = (message: FromDispatchThread) => port.postMessage(message);
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
  // The commits are the server's thread's: it claims for this dispatcher and posts what it claimed.
  handOff(owner, leaseMs, listener) {
    handedTo = listener;
    tell({ kind: "hand-off", owner, leaseMs });
    return () => tell({ kind: "hand-off-stop" });
  },
};
// What the handler would deliver with (signing secrets, horizon, retry wait, guarded sender): one source.
const push = pushHandlerOptions(data.push, db, invalidation);
if (!push) throw new Error("the dispatch thread runs only with push notifications on");
const telemetry = new WorkerPushTelemetry((batch) => port.postMessage(batch));
const dispatcher = createPushDispatcher({
  deliveries,
  instanceId: data.instanceId,
  logger,
  telemetry,
  push,
});

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
        await invalidation.close();
        await queue.close();
        await db.close();
      } catch (error) {
        logger.warn({ err: error }, "push dispatch thread: closing its store failed");
      } finally {
        tell({ kind: "closed" });
      }
    })();
  }
});
dispatcher.start();
