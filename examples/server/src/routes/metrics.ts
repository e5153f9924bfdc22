import {
  createMetricsEventsEndpoint,
  METHOD_NOT_ALLOWED_ANSWER,
  type MetricsAnswer,
  MISSING_WORKSPACE_ANSWER,
} from "@a2a-partner/metrics-core";
import type { CacheInvalidation, Database, ReplicaFence } from "@a2a-partner/postgres-store";
import { type Response, Router } from "express";
import type { Logger } from "pino";
import { RefusalLog } from "../auth/refusal-log.ts";
import { findReadableWorkspace, userAuthenticator } from "../auth/user-auth.ts";

function send(res: Response, answer: MetricsAnswer): void {
  res.status(answer.status).set(answer.headers);
  if (answer.problem) res.type("application/problem+json");
  res.json(answer.body);
}

/**
 * `GET /api/v1/metrics/events/{workspace}` (docs/contract.md, Metrics and Authentication; docs/metrics.md):
 * metrics-core's endpoint with this server's user tokens and workspaces. The counts come from the replica
 * when there is one (DATABASE_READ_URL), as named statements (docs/performance.md). With `accessFence`,
 * the credential and the access check read the replica too, but only when it shows every access change
 * this instance was told of (a revocation holds as soon as its NOTIFY arrives); a refusal is confirmed on
 * the primary, so a token or membership made a moment ago works at once.
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
  const log = logger.child({ component: "metrics" });
  const authenticate = userAuthenticator(db, invalidation, { accessFence });
  const refusals = refusalLog ?? new RefusalLog(log);
  const events = createMetricsEventsEndpoint({
    db,
    replica: db.replica,
    namedStatement: true,
    ratePerSecond,
    async authenticate(authorization) {
      const auth = await authenticate(authorization);
      return auth.ok ? { ok: true, caller: auth.userId, limitKey: `user:${auth.tokenId}` } : auth;
    },
    findWorkspace: async (userId, workspace) =>
      (await accessFence?.read((replica) => findReadableWorkspace(replica, userId, workspace))) ??
      (await findReadableWorkspace(db, userId, workspace)),
    onRefused: ({ status, reason }) => refusals.refused({ endpoint: "metrics", status, reason }),
    onQuery: (query) => log.debug(query, "metrics query"),
  });

  const router = Router();
  router.get("/events/:workspace", async (req, res) => {
    // From the raw query string, so repeats are caught whatever query parser the app is configured with.
    const query = new URL(req.originalUrl, "http://localhost").searchParams;
    send(res, await events({ authorization: req.get("authorization"), workspace: req.params.workspace, query }));
  });
  router.all("/events", (_req, res) => send(res, MISSING_WORKSPACE_ANSWER));
  router.all("/events/:workspace", (_req, res) => send(res, METHOD_NOT_ALLOWED_ANSWER));
  return router;
}
