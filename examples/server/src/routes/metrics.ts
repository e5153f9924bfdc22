import { TokenBucketRateLimiter } from "@a2a-partner/a2a-core";
import {
  isMetricsWindowError,
  type MetricsWindow,
  type MetricsWindowProblem,
  metricsWindowProblem,
  parseMetricsWindow,
  queryEventMetrics,
} from "@a2a-partner/metrics-core";
import type { CacheInvalidation, Database, ReplicaFence } from "@a2a-partner/postgres-store";
import { type Response, Router } from "express";
import { RefusalLog } from "../auth/refusal-log.ts";
import { findReadableWorkspace, userAuthenticator } from "../auth/user-auth.ts";
import type { Logger } from "../logger.ts";

/** RFC 9457 problem details, the body of every error this router answers. */
interface Problem {
  type: "about:blank";
  title: string;
  status: number;
  detail: string;
  /** For a refused query parameter: which one, and a stable reason code (as metrics-core's window errors). */
  parameter?: string;
  reason?: string;
}

/** The query parameters the endpoint reads; any other is refused, so a typo never widens the window. */
const ACCEPTED_PARAMETERS = ["start_timestamp", "end_timestamp"];

/** A query parameter the endpoint does not read (`?start=…` for `start_timestamp`): 400 naming it. */
function unknownParameterProblem(query: URLSearchParams): Problem | undefined {
  const unknown = [...query.keys()].find((name) => !ACCEPTED_PARAMETERS.includes(name));
  if (unknown === undefined) return undefined;
  const shown = unknown.length > 64 ? `${unknown.slice(0, 64)}…` : unknown;
  return {
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail: `unknown query parameter "${shown}"; the accepted ones are ${ACCEPTED_PARAMETERS.join(" and ")}`,
    parameter: shown,
    reason: "unknown_parameter",
  };
}

function sendProblem(
  res: Response,
  problem: Problem | MetricsWindowProblem,
  headers: Record<string, string> = {},
): void {
  res.status(problem.status).set(headers).type("application/problem+json").json(problem);
}

// One body for "no such workspace" and "not yours to read", so a 404 never tells them apart.
const WORKSPACE_NOT_FOUND: Problem = {
  type: "about:blank",
  title: "Not Found",
  status: 404,
  detail: "No workspace with this UUID or slug is readable with this token",
};

/**
 * `GET /api/v1/metrics/events/{workspace}`: daily-bucketed counts of a workspace's stored records
 * (docs/contract.md, Metrics and Authentication; docs/metrics.md). Checks run in this order: credential
 * (401/403), window (400), workspace and read access (404); then one statement aggregates everything in
 * the database: on the replica when there is one (DATABASE_READ_URL), so counts may be as old as its lag.
 * With `accessFence`, the credential and the access check read the replica too, but only when it shows
 * every access change this instance was told of (a revocation holds as soon as its NOTIFY arrives);
 * a refusal is confirmed on the primary, so a token or membership made a moment ago works at once.
 */
export function metricsRouter({
  db,
  logger,
  ratePerSecond = 0,
  invalidation,
  accessFence,
  refusalLog,
}: {
  db: Database;
  logger: Logger;
  /** Sustained requests per second per user token (burst twice that); 0 turns the limit off. */
  ratePerSecond?: number;
  /** api_tokens' change feed: with it, unknown tokens are refused from memory for a while (unknown-tokens.ts). */
  invalidation?: CacheInvalidation;
  /** With a read replica: when the access checks may read there (ReplicaFence on a2a_access_changes). */
  accessFence?: ReplicaFence;
  /** Where refusals are logged; default: this router's logger, at most once a minute per cause. */
  refusalLog?: RefusalLog;
}): Router {
  const router = Router();
  const log = logger.child({ component: "metrics" });
  const authenticate = userAuthenticator(db, invalidation, accessFence ? { accessFence } : {});
  const refusals = refusalLog ?? new RefusalLog(log);
  const limiter =
    ratePerSecond > 0 ? new TokenBucketRateLimiter({ ratePerSecond, burst: 2 * ratePerSecond }) : undefined;

  router.get("/events/:workspace", async (req, res) => {
    // Counts change as robots work and differ per caller: never cached anywhere.
    res.set("cache-control", "private, no-store");
    const auth = await authenticate(req.get("authorization"));
    if (!auth.ok) {
      refusals.refused({ endpoint: "metrics", status: auth.status, reason: auth.reason });
      const title = auth.status === 401 ? "Unauthorized" : "Forbidden";
      return sendProblem(
        res,
        { type: "about:blank", title, status: auth.status, detail: auth.detail },
        { "www-authenticate": auth.challenge },
      );
    }
    // Per caller, after authentication: each aggregation reads many rows, so one token cannot starve others.
    const decision = limiter?.take(`user:${auth.tokenId}`, Date.now());
    if (decision && !decision.allowed) {
      return sendProblem(
        res,
        {
          type: "about:blank",
          title: "Too Many Requests",
          status: 429,
          detail: "Rate limit exceeded; retry after the time in Retry-After",
        },
        { "retry-after": String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) },
      );
    }

    let window: MetricsWindow;
    // From the raw query string, so repeats are caught whatever query parser the app is configured with.
    const query = new URL(req.originalUrl, "http://localhost").searchParams;
    const unknown = unknownParameterProblem(query);
    if (unknown) return sendProblem(res, unknown);
    try {
      window = parseMetricsWindow(query);
    } catch (error) {
      if (!isMetricsWindowError(error)) throw error;
      return sendProblem(res, metricsWindowProblem(error));
    }

    const segment = req.params.workspace;
    const workspace =
      (await accessFence?.read((replica) => findReadableWorkspace(replica, auth.userId, segment))) ??
      (await findReadableWorkspace(db, auth.userId, segment));
    if (!workspace) return sendProblem(res, WORKSPACE_NOT_FOUND);

    const started = performance.now();
    // Named: each statement shape is parsed once per connection and, once PostgreSQL settles on a generic
    // plan, no longer planned per request (0.2–0.5 ms on PostgreSQL, 1–3 ms on PGlite: docs/performance.md).
    const body = await eventMetrics(db, workspace.id, window);
    log.debug(
      { workspace: workspace.id, window, ms: Math.round((performance.now() - started) * 10) / 10 },
      "metrics query",
    );
    res.json(body);
  });

  // No workspace in the path (`/events`, `/events/`): say which part is missing, not a bare 404.
  router.all("/events", (_req, res) => {
    sendProblem(res, {
      type: "about:blank",
      title: "Not Found",
      status: 404,
      detail: "The workspace is missing from the path: GET /api/v1/metrics/events/{workspace}, its UUID or slug",
      parameter: "workspace",
      reason: "missing_workspace",
    });
  });

  router.all("/events/:workspace", (_req, res) => {
    sendProblem(
      res,
      { type: "about:blank", title: "Method Not Allowed", status: 405, detail: "Use GET" },
      { allow: "GET, HEAD" },
    );
  });

  return router;
}

/** The aggregation, on the replica if any; on the primary when the replica cannot answer (down, restarting). */
async function eventMetrics(db: Database, workspaceId: string, window: MetricsWindow) {
  if (db.replica) {
    try {
      return await queryEventMetrics(db.replica, workspaceId, window, { namedStatement: true });
    } catch {
      // Answered below from the primary; a request the replica refused, the primary refuses the same way.
    }
  }
  return queryEventMetrics(db, workspaceId, window, { namedStatement: true });
}
