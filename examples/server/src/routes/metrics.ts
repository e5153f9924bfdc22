import {
  isMetricsWindowError,
  type MetricsWindow,
  type MetricsWindowProblem,
  metricsWindowProblem,
  parseMetricsWindow,
  queryEventMetrics,
} from "@a2a-partner/metrics-core";
import type { Database } from "@a2a-partner/postgres-store";
import { type Response, Router } from "express";
import { authenticateUser, findReadableWorkspace } from "../auth/user-auth.ts";
import type { Logger } from "../logger.ts";

/** RFC 9457 problem details, the body of every error this router answers. */
interface Problem {
  type: "about:blank";
  title: string;
  status: number;
  detail: string;
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
 * (DESIGN §6, §7). Checks run in this order: credential (401/403), window (400), workspace and read
 * access (404); then one statement aggregates everything in the database.
 */
export function metricsRouter({ db, logger }: { db: Database; logger: Logger }): Router {
  const router = Router();
  const log = logger.child({ component: "metrics" });

  router.get("/events/:workspace", async (req, res) => {
    // Counts change as robots work and differ per caller: never cached anywhere.
    res.set("cache-control", "private, no-store");
    const auth = await authenticateUser(db, req.get("authorization"));
    if (!auth.ok) {
      const title = auth.status === 401 ? "Unauthorized" : "Forbidden";
      return sendProblem(
        res,
        { type: "about:blank", title, status: auth.status, detail: auth.detail },
        { "www-authenticate": auth.challenge },
      );
    }

    let window: MetricsWindow;
    try {
      // From the raw query string, so repeats are caught whatever query parser the app is configured with.
      window = parseMetricsWindow(new URL(req.originalUrl, "http://localhost").searchParams);
    } catch (error) {
      if (!isMetricsWindowError(error)) throw error;
      return sendProblem(res, metricsWindowProblem(error));
    }

    const workspace = await findReadableWorkspace(db, auth.userId, req.params.workspace);
    if (!workspace) return sendProblem(res, WORKSPACE_NOT_FOUND);

    const started = performance.now();
    const body = await queryEventMetrics(db, workspace.id, window);
    log.debug(
      { workspace: workspace.id, window, ms: Math.round((performance.now() - started) * 10) / 10 },
      "metrics query",
    );
    res.json(body);
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
