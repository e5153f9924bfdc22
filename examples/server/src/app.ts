import { randomUUID } from "node:crypto";
import type { RequestListener } from "node:http";
import type { A2AHandler, TaskExecutor } from "@a2a-partner/a2a-core";
import type { Database } from "@a2a-partner/postgres-store";
import type { Express } from "express";
import type { Logger } from "pino";
import { createServerHandler } from "./app/a2a-handler.ts";
import { startPushDispatch } from "./app/push-dispatch.ts";
import { CACHE_CHANGES_CHANNEL, openServerStores } from "./app/stores.ts";
import type { ServerConfig } from "./config.ts";
import { serverRoutes } from "./routes/server-routes.ts";

export { CACHE_CHANGES_CHANNEL };

export interface ServerApp {
  app: Express;
  /**
   * The request listener for node:http: the A2A endpoint straight to its node handler, everything else
   * through Express (which also serves the A2A endpoint, for anyone mounting `app` elsewhere).
   */
  listener: RequestListener;
  handler: A2AHandler;
  /** Graceful: ends open streams cleanly and gives running tasks the configured grace period. */
  close(): Promise<void>;
}

export interface CreateAppOptions {
  db: Database;
  config: ServerConfig;
  logger: Logger;
  /** Replaces the simulated robot fleet (tests, or a real fleet). */
  executor?: TaskExecutor;
}

/** The reference server: stores (app/stores.ts), the A2A handler (app/a2a-handler.ts), routes (routes/). */
export function createApp({ db, config, logger, executor }: CreateAppOptions): ServerApp {
  const stores = openServerStores(db, config, logger, executor);
  // This process's name as the holder of its tasks' leases and of its push claims.
  const instanceId = `runner-${randomUUID()}`;
  const handler = createServerHandler(db, stores, config, instanceId, logger);
  const { app, listener } = serverRoutes(db, handler, config, logger, stores.invalidation, stores.accessFence);
  // Last: nothing above can throw any more once a thread is running.
  const dispatchThread = startPushDispatch(config, instanceId, stores.stores.push, CACHE_CHANGES_CHANNEL, logger);
  return {
    app,
    listener,
    handler,
    async close() {
      await stores.stopJobs();
      await Promise.all([
        handler.close({ graceMs: config.shutdownGraceMs }),
        dispatchThread?.close(config.shutdownGraceMs),
      ]);
      await stores.close();
    },
  };
}
