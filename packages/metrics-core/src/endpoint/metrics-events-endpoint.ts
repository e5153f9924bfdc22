import { TokenBucketRateLimiter } from "@a2a-partner/a2a-core";
import { type MetricsQueryable, queryEventMetrics } from "../query-event-metrics.js";
import { isMetricsWindowError, metricsWindowProblem } from "../window/metrics-window-error.js";
import { type MetricsWindow, parseMetricsWindow } from "../window/parse-metrics-window.js";
import { type MetricsAnswer, problemAnswer, unknownParameterProblem, WORKSPACE_NOT_FOUND } from "./metrics-problems.js";

/** A refused credential: 401 (missing, unknown) or 403 (the wrong kind); an embedder's may carry more. */
export interface MetricsRefusal {
  ok: false;
  status: 401 | 403;
  detail: string;
  /** The `WWW-Authenticate` challenge to send (RFC 6750 §3). */
  challenge: string;
}

/** Who called, as the embedder's `authenticate` found: a caller, or why not. */
export type MetricsAuthResult<Caller, Refusal extends MetricsRefusal = MetricsRefusal> =
  | {
      ok: true;
      caller: Caller;
      /** The key of the per-caller rate limit (a token's id, say). */
      limitKey: string;
    }
  | Refusal;

export interface MetricsEventsEndpointOptions<Caller, Refusal extends MetricsRefusal = MetricsRefusal> {
  /** Where the counts are read: the primary (and what the replica fails over to). */
  db: MetricsQueryable;
  /** A read replica, when there is one: counts may then be as old as its lag. */
  replica?: MetricsQueryable | undefined;
  /** Runs under a stable name per shape (`queryEventMetrics`' option): only for postgres-store handles. */
  namedStatement?: boolean;
  /** The credential check: the `Authorization` header in, a caller or a 401/403 out. */
  authenticate(authorization: string | undefined): Promise<MetricsAuthResult<Caller, Refusal>>;
  /** The workspace the path names (a UUID or a slug), if this caller may read it; else undefined (404). */
  findWorkspace(caller: Caller, workspace: string): Promise<{ id: string } | undefined>;
  /** Sustained requests per second per caller (burst twice that); 0 or unset turns the limit off. */
  ratePerSecond?: number;
  /** Told of each refused credential (for a log). */
  onRefused?(refusal: Refusal): void;
  /** Told of each answered query (for a debug log). */
  onQuery?(query: { workspace: string; window: MetricsWindow; ms: number }): void;
  /** The clock of the rate limit; default `Date.now`. */
  now?(): number;
}

/** One `GET /events/{workspace}` as the endpoint reads it, from whatever framework routed it. */
export interface MetricsEventsRequest {
  authorization: string | undefined;
  /** The path's `{workspace}`, decoded: a UUID or a slug. */
  workspace: string;
  /** The raw query string's parameters (repeats kept, so they are refused whatever the framework's parser). */
  query: URLSearchParams;
}

/**
 * `GET /api/v1/metrics/events/{workspace}`, framework-free: daily-bucketed counts of a workspace's
 * stored records. Checks run in this order: credential (401/403), rate limit (429), window (400),
 * workspace and read access (404); then one statement aggregates everything in the database, on the
 * replica when there is one. The answer is never cacheable (counts change as work goes on, and per
 * caller). Route `/events` to `MISSING_WORKSPACE_ANSWER` and other methods to `METHOD_NOT_ALLOWED_ANSWER`.
 */
export function createMetricsEventsEndpoint<Caller, Refusal extends MetricsRefusal = MetricsRefusal>(
  options: MetricsEventsEndpointOptions<Caller, Refusal>,
): (request: MetricsEventsRequest) => Promise<MetricsAnswer> {
  const rate = options.ratePerSecond ?? 0;
  const limiter = rate > 0 ? new TokenBucketRateLimiter({ ratePerSecond: rate, burst: 2 * rate }) : undefined;
  const now = options.now ?? Date.now;
  const noStore = { "cache-control": "private, no-store" };

  return async (request) => {
    const auth = await options.authenticate(request.authorization);
    if (!auth.ok) {
      options.onRefused?.(auth);
      const title = auth.status === 401 ? "Unauthorized" : "Forbidden";
      return problemAnswer(
        { type: "about:blank", title, status: auth.status, detail: auth.detail },
        { ...noStore, "www-authenticate": auth.challenge },
      );
    }
    // Per caller, after authentication: each aggregation reads many rows, so one caller cannot starve others.
    const decision = limiter?.take(auth.limitKey, now());
    if (decision && !decision.allowed) {
      return problemAnswer(
        {
          type: "about:blank",
          title: "Too Many Requests",
          status: 429,
          detail: "Rate limit exceeded; retry after the time in Retry-After",
        },
        { ...noStore, "retry-after": String(Math.max(1, Math.ceil(decision.retryAfterMs / 1000))) },
      );
    }

    const unknown = unknownParameterProblem(request.query);
    if (unknown) return problemAnswer(unknown, noStore);
    let window: MetricsWindow;
    try {
      window = parseMetricsWindow(request.query);
    } catch (error) {
      if (!isMetricsWindowError(error)) throw error;
      return problemAnswer(metricsWindowProblem(error), noStore);
    }

    const workspace = await options.findWorkspace(auth.caller, request.workspace);
    if (!workspace) return problemAnswer(WORKSPACE_NOT_FOUND, noStore);

    const started = performance.now();
    const body = await eventMetrics(options, workspace.id, window);
    options.onQuery?.({ workspace: workspace.id, window, ms: Math.round((performance.now() - started) * 10) / 10 });
    return { status: 200, headers: noStore, body, problem: false };
  };
}

/** The aggregation, on the replica if any; on the primary when the replica cannot answer (down, restarting). */
async function eventMetrics(
  options: Pick<MetricsEventsEndpointOptions<unknown>, "db" | "replica" | "namedStatement">,
  workspaceId: string,
  window: MetricsWindow,
) {
  const named = { namedStatement: options.namedStatement === true };
  if (options.replica) {
    try {
      return await queryEventMetrics(options.replica, workspaceId, window, named);
    } catch {
      // Answered below from the primary; a request the replica refused, the primary refuses the same way.
    }
  }
  return queryEventMetrics(options.db, workspaceId, window, named);
}
