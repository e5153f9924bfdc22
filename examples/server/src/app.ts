import { randomUUID } from "node:crypto";
import { type RequestListener, STATUS_CODES } from "node:http";
import {
  type A2AHandler,
  buildAgentCardV1,
  buildAgentCardV03,
  createA2AHandler,
  requestedProtocolVersion,
  type TaskExecutor,
} from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";
import { startRollupCompaction } from "@a2a-partner/metrics-core";
import { CacheInvalidation, createPostgresStores, type Database } from "@a2a-partner/postgres-store";
import express, { type ErrorRequestHandler, type Express, type RequestHandler } from "express";
import { A2A_PATH, agentCardInput } from "./agent-card.ts";
import { JWKS_PATH, loadCardSigning } from "./agent-card-signing.ts";
import { partnerAuthenticator } from "./auth/partner-auth.ts";
import type { ServerConfig } from "./config.ts";
import { SimulatedRobotFleet } from "./fleet/simulated-robot-fleet.ts";
import type { Logger } from "./logger.ts";
import { PushDispatchThread } from "./push/dispatch-thread.ts";
import { pushHandlerOptions } from "./push/push-handler-options.ts";
import { metricsRouter } from "./routes/metrics.ts";

/** The channel the reference server migration's triggers NOTIFY on; the payload is the changed table's name. */
export const CACHE_CHANGES_CHANNEL = "a2a_cache_changes";

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

/** The reference server: the cores assembled behind Express 5. */
export function createApp({ db, config, logger, executor }: CreateAppOptions): ServerApp {
  const stores = createPostgresStores(db);
  // Tokens, Environments and workflows are served from memory while every change to them is announced.
  const invalidation = new CacheInvalidation(db, {
    channel: CACHE_CHANGES_CHANNEL,
    onUnavailable: (error) =>
      logger.warn({ err: error }, "cache invalidation unavailable; serving every lookup from the database"),
  });
  const listening = invalidation.start();
  // The task events' LISTEN from the start, so the first streams never wait for the periodic re-check.
  void stores.events.listen().catch((error: unknown) => logger.warn({ err: error }, "LISTEN failed; will retry"));
  const fleet = executor
    ? undefined
    : new SimulatedRobotFleet({ db, stepMs: config.robotStepMs, writer: stores.events.writer, invalidation });
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
  // Folds the metrics deltas the raw tables' triggers append into the rollups, every few seconds.
  const compaction = startRollupCompaction(db, {
    onError: (error) => logger.warn({ err: error }, "metrics rollup compaction failed"),
  });
  // This process's name as the holder of its tasks' leases and of its push claims.
  const instanceId = `runner-${randomUUID()}`;
  // On PostgreSQL push deliveries go out from a thread of their own (PUSH_DISPATCH_THREAD, default on),
  // started once nothing here can throw any more (a thread would keep a failed start's process alive).
  const useDispatchThread = Boolean(config.databaseUrl && config.push.enabled && config.push.dispatchThread);
  const handler = createA2AHandler({
    stores,
    instanceId,
    executor: executor ?? (fleet as SimulatedRobotFleet),
    authenticate: partnerAuthenticator(db, invalidation, { logger: logger.child({ component: "auth" }) }),
    logger: logger.child({ component: "a2a" }),
    leaseMs: config.taskLeaseMs,
    ...(config.rateLimitPerSecond > 0 ? { rateLimit: { requestsPerSecond: config.rateLimitPerSecond } } : {}),
    ...(config.maxStreamsPerToken > 0 ? { maxOpenStreamsPerCaller: config.maxStreamsPerToken } : {}),
    ...(config.maxRequestsInFlight > 0 ? { maxRequestsInFlight: config.maxRequestsInFlight } : {}),
    ...(config.maxRequestsInFlightPerToken > 0
      ? { maxRequestsInFlightPerCaller: config.maxRequestsInFlightPerToken }
      : {}),
    push: pushHandlerOptions(config.push, db, invalidation, { dispatch: !useDispatchThread }),
    // The contract (docs/contract.md): tasks are started and followed over streams only.
    methods: { sendMessage: false, continueTask: false },
  });
  const card = agentCardInput(config.publicUrl, { pushNotifications: handler.pushNotifications });
  // Both cards once: the request picks one, and a signed card is signed once (agent-card-signing.ts).
  const cards = { v03: buildAgentCardV03(card), v1: buildAgentCardV1(card) };
  const signing = loadCardSigning(config.agentCardSigning ?? {}, config.publicUrl);
  const dispatchThread =
    useDispatchThread && config.databaseUrl
      ? new PushDispatchThread(
          {
            databaseUrl: config.databaseUrl,
            listenUrl: config.databaseConnections.listenUrl,
            transactionPooler: config.databaseConnections.transactionPooler,
            instanceId,
            logLevel: config.logLevel,
            logFormat: config.logFormat,
            cacheChangesChannel: CACHE_CHANGES_CHANNEL,
            push: config.push,
          },
          stores.push.deliveries,
          logger.child({ component: "push" }),
        )
      : undefined;

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

  app.get("/.well-known/agent-card.json", async (req, res) => {
    const asked = requestedProtocolVersion(toHeaders(req.headers), req.originalUrl);
    const chosen = asked.ok && asked.version === "1.0" ? cards.v1 : cards.v03;
    // The dialect depends on A2A-Version, so caches must key on it.
    res
      .set({ "cache-control": "public, max-age=300", vary: "A2A-Version" })
      .json(signing ? await signing.signed(chosen) : chosen);
  });
  if (signing) {
    app.get(JWKS_PATH, async (_req, res) => {
      res.set({ "cache-control": "public, max-age=300" }).json(await signing.jwks());
    });
  }

  // The core handler reads the raw body itself (size limit, UTF-8, JSON): no body parser in front of it.
  // Mounted at A2A_PATH, and at the root too, where generic A2A tools (the conformance kit) send their
  // requests when given only the base URL (docs/interop.md); each serves exactly its own paths.
  const headers = Object.fromEntries(SECURITY_HEADERS);
  const a2a = toNodeHandler(handler, { headers, basePath: A2A_PATH });
  const a2aAtRoot = toNodeHandler(handler, { headers, basePath: "/" });
  const endpointOf = (url: string | undefined) =>
    a2a.serves(url) ? a2a : a2aAtRoot.serves(url) ? a2aAtRoot : undefined;
  app.use((req, res, next) => {
    const endpoint = endpointOf(req.url);
    if (endpoint) void endpoint(req, res);
    else next();
  });

  app.use(
    "/api/v1/metrics",
    metricsRouter({ db, logger, ratePerSecond: config.metricsRateLimitPerSecond, invalidation }),
  );

  app.use((_req, res) => {
    res.status(404).type("application/problem+json").json({ type: "about:blank", title: "Not Found", status: 404 });
  });
  app.use(errorHandler(logger));

  // Measured: Express's router kept ~0.5 KiB of closures and a parsed URL alive per open stream and
  // cost a few µs per request; the endpoint's own adapter needs none of it.
  const route: RequestListener = (req, res) => {
    // The adapter writes the security headers with the answer's own (no header map kept per stream).
    const endpoint = endpointOf(req.url);
    if (endpoint) void endpoint(req, res);
    else app(req, res);
  };
  const listener = withRequestLog(route, logger.child({ component: "http" }));

  return {
    app,
    listener,
    handler,
    async close() {
      clearInterval(reconcile);
      await compaction.stop();
      await Promise.all([
        handler.close({ graceMs: config.shutdownGraceMs }),
        dispatchThread?.close(config.shutdownGraceMs),
      ]);
      await listening;
      await invalidation.close();
      await stores.events.close();
    },
  };
}

const SECURITY_HEADERS: ReadonlyArray<[string, string]> = [
  ["x-content-type-options", "nosniff"],
  ["x-frame-options", "DENY"],
  ["referrer-policy", "no-referrer"],
  ["content-security-policy", "default-src 'none'; frame-ancestors 'none'"],
];

const securityHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
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

/**
 * At debug, a line per request once its answer ends (a stream: when it closes): method, path without the
 * query, status and duration. Nothing from headers or body. At info and above it costs one level check.
 */
function withRequestLog(route: RequestListener, logger: Logger): RequestListener {
  return (req, res) => {
    if (logger.isLevelEnabled("debug")) {
      const started = performance.now();
      const path = req.url?.split("?", 1)[0];
      res.once("close", () => {
        const ms = Math.round((performance.now() - started) * 10) / 10;
        logger.debug(
          { method: req.method, path, status: res.statusCode, ms, ...(res.writableFinished ? {} : { aborted: true }) },
          "request",
        );
      });
    }
    route(req, res);
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
