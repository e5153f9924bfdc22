import type { MetricsWindowProblem } from "../window/metrics-window-error.js";

/** RFC 9457 problem details: the body of every error the metrics endpoint answers. */
export interface MetricsProblem {
  type: "about:blank";
  title: string;
  status: number;
  detail: string;
  /** For a refused query parameter or path part: which one, and a stable reason code. */
  parameter?: string;
  reason?: string;
}

/** What the endpoint answers: a status, headers to set and a JSON body (a problem when `problem`). */
export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  /** The counts (`EventMetricsResponse`), or a `MetricsProblem` / `MetricsWindowProblem`. */
  body: unknown;
  /** Send as `application/problem+json`. */
  problem: boolean;
}

/** The query parameters the endpoint reads; any other is refused, so a typo never widens the window. */
const ACCEPTED_PARAMETERS = ["start_timestamp", "end_timestamp"];

/** A query parameter the endpoint does not read (`?start=…` for `start_timestamp`): 400 naming it. */
export function unknownParameterProblem(query: URLSearchParams): MetricsProblem | undefined {
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

export function problemAnswer(
  problem: MetricsProblem | MetricsWindowProblem,
  headers: Record<string, string> = {},
): MetricsAnswer {
  return { status: problem.status, headers, body: problem, problem: true };
}

// One body for "no such workspace" and "not yours to read", so a 404 never tells them apart.
export const WORKSPACE_NOT_FOUND: MetricsProblem = {
  type: "about:blank",
  title: "Not Found",
  status: 404,
  detail: "No workspace with this UUID or slug is readable with this token",
};

/** `/events` or `/events/` (no workspace in the path): say which part is missing, not a bare 404. */
export const MISSING_WORKSPACE_ANSWER: MetricsAnswer = problemAnswer({
  type: "about:blank",
  title: "Not Found",
  status: 404,
  detail: "The workspace is missing from the path: GET /api/v1/metrics/events/{workspace}, its UUID or slug",
  parameter: "workspace",
  reason: "missing_workspace",
});

/** Any method but GET (and HEAD) on `/events/{workspace}`. */
export const METHOD_NOT_ALLOWED_ANSWER: MetricsAnswer = problemAnswer(
  { type: "about:blank", title: "Method Not Allowed", status: 405, detail: "Use GET" },
  { allow: "GET, HEAD" },
);
