import { STATUS_CODES } from "node:http";
import { type A2AHandler, agentCardForRequest, createA2AHandler, type TaskExecutor } from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";
import { createPostgresStores, type Database } from "@a2a-partner/postgres-store";
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import { A2A_PATH, agentCardInput } from "./agent-card.ts";
import { partnerAuthenticator } from "./auth/partner-auth.ts";
import type { ServerConfig } from "./config.ts";
import { SimulatedRobotFleet } from "./fleet/simulated-robot-fleet.ts";
import type { Logger } from "./logger.ts";
import { metricsRouter } from "./routes/metrics.ts";

export interface ServerApp {
  app: Express;
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

/** The reference server: the cores assembled behind Express 5. */
export function createApp({ db, config, logger, executor }: CreateAppOptions): ServerApp {
  const fleet = executor ? undefined : new SimulatedRobotFleet({ db, stepMs: config.robotStepMs });
  // Executions left `running` by a server that died are settled from their task's final state.
  let reconciling = false;
  const reconcile = fleet
    ? setInterval(
        () => {
          if (reconciling) return; // a slow or unreachable database: skip the tick rather than pile up
          reconciling = true;
          fleet
            .reconcileExecutions()
            .catch((error) => logger.warn({ err: error }, "execution reconcile failed"))
            .finally(() => {
              reconciling = false;
            });
        },
        Math.max(1000, config.taskLeaseMs / 2),
      )
    : undefined;
  reconcile?.unref();
  const handler = createA2AHandler({
    stores: createPostgresStores(db),
    executor: executor ?? (fleet as SimulatedRobotFleet),
    authenticate: partnerAuthenticator(db),
    logger: logger.child({ component: "a2a" }),
    leaseMs: config.taskLeaseMs,
    ...(config.rateLimitPerSecond > 0 ? { rateLimit: { requestsPerSecond: config.rateLimitPerSecond } } : {}),
    ...(config.maxStreamsPerToken > 0 ? { maxOpenStreamsPerCaller: config.maxStreamsPerToken } : {}),
  });
  const card = agentCardInput(config.publicUrl);

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

  app.get("/.well-known/agent-card.json", (req, res) => {
    // The dialect depends on A2A-Version, so caches must key on it.
    res
      .set({ "cache-control": "public, max-age=300", vary: "A2A-Version" })
      .json(agentCardForRequest(toHeaders(req.headers), card));
  });

  // The core handler reads the raw body itself (size limit, UTF-8, JSON): no body parser in front of it.
  app.all(A2A_PATH, toNodeHandler(handler));

  app.use("/api/v1/metrics", metricsRouter({ db, logger }));

  app.use((_req, res) => {
    res.status(404).type("application/problem+json").json({ type: "about:blank", title: "Not Found", status: 404 });
  });
  app.use(errorHandler(logger));

  return {
    app,
    handler,
    async close() {
      clearInterval(reconcile);
      await handler.close({ graceMs: config.shutdownGraceMs });
    },
  };
}

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.set({
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "no-referrer",
    "content-security-policy": "default-src 'none'; frame-ancestors 'none'",
  });
  next();
};

/**
 * Errors that carry an HTTP status (e.g. from Express itself) keep it. Anything else is a store failure
 * (an outage) or a bug: 503 + Retry-After so clients retry, with nothing of the cause in the body.
 */
function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    const known = typeof error?.status === "number" && error.status >= 400 && error.status < 600;
    const status: number = known ? error.status : 503;
    if (!known) logger.error({ err: error }, "request failed");
    if (res.headersSent) return res.end();
    if (status === 503) res.set("retry-after", "1");
    res
      .status(status)
      .type("application/problem+json")
      .json({
        type: "about:blank",
        title: STATUS_CODES[status] ?? "Error",
        status,
        ...(status === 503 ? { detail: "Temporarily unavailable; retry the request" } : {}),
      });
  };
}

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === "string") headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  return headers;
}
