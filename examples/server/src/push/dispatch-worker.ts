import { createPinoLogger, type PushSettings } from "@a2a-partner/a2a-core/node-runtime";
import { CacheInvalidation, openDatabase, postgresPoolOptions } from "@a2a-partner/postgres-store";
import { runPushDispatchWorker } from "@a2a-partner/postgres-store/dispatch-thread";
import { SERVICE_NAME } from "../config.ts";
import { pushHandlerOptions } from "./push-handler-options.ts";

/** What the server starts its push dispatch thread with (app.ts). */
export interface DispatchWorkerData {
  databaseUrl: string;
  /** DATABASE_LISTEN_URL, when set: its LISTEN connections go there. */
  listenUrl?: string | undefined;
  /** DATABASE_POOLER=transaction: no named statements or startup options on `databaseUrl`. */
  transactionPooler?: boolean | undefined;
  logLevel: string;
  logFormat: "json" | "pretty" | undefined;
  cacheChangesChannel: string;
  push: PushSettings;
}

/** A claim, the completes' statement, a retry or give-up, a secrets lookup at once (LISTENs have their own). */
const POOL_SIZE = 4;

// The push dispatch thread's module (postgres-store's PushDispatchThread): a pool of its own on the same
// database, the same signing secrets, SSRF guard, horizon and retry wait as the handler would use, its
// log lines on stderr as the server's.
await runPushDispatchWorker(async (data: DispatchWorkerData) => {
  const options = { level: data.logLevel, format: data.logFormat, service: SERVICE_NAME };
  const logger = createPinoLogger(options).child({ component: "push" });
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
  const push = pushHandlerOptions(data.push, db, invalidation);
  if (!push) throw new Error("the dispatch thread runs only with push notifications on");
  return {
    db,
    push,
    logger,
    async close() {
      await invalidation.close();
      await db.close();
    },
  };
});
