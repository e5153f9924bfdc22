import type { RequestListener } from "node:http";
import type { A2AHandler } from "@a2a-partner/a2a-core";
import { notFoundAnswer, problemOnError, securityHeaders, withRequestLog } from "@a2a-partner/a2a-core/node-runtime";
import type { CacheInvalidation, Database, ReplicaFence } from "@a2a-partner/postgres-store";
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { ServerConfig } from "../config.ts";
import { mountA2AEndpoint } from "./a2a-mount.ts";
import { discoveryRoutes } from "./discovery.ts";
import { metricsRouter } from "./metrics.ts";

/**
 * Every route of the server on one Express app: health, discovery, the A2A endpoint, metrics, then 404
 * and the error answer. `listener` is what node:http serves (the A2A endpoint past Express, a request
 * log at debug).
 */
export function serverRoutes(
  db: Database,
  handler: A2AHandler,
  config: ServerConfig,
  logger: Logger,
  invalidation: CacheInvalidation,
  accessFence?: ReplicaFence,
): { app: Express; listener: RequestListener } {
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", false);
  app.use(securityHeaders);

  app.get("/healthz", async (_req, res) => {
    try {
      await db.query("select 1");
      res.json({ status: "ok" });
    } catch {
      res.status(503).json({ status: "unavailable" });
    }
  });
  discoveryRoutes(app, config, handler.pushNotifications);
  const route = mountA2AEndpoint(app, handler);
  app.use(
    "/api/v1/metrics",
    metricsRouter({ db, logger, ratePerSecond: config.metricsRateLimitPerSecond, invalidation, accessFence }),
  );

  app.use(notFoundAnswer);
  app.use(problemOnError(logger));
  return { app, listener: withRequestLog(route, logger.child({ component: "http" })) };
}
