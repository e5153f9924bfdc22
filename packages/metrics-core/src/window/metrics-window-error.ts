/** The query parameters a metrics window is read from. */
export type MetricsWindowParameter = "start_timestamp" | "end_timestamp";

/**
 * Why a bound was refused. One code per distinct fix the caller has to make, so clients can branch on it
 * without parsing the message.
 */
export type MetricsWindowErrorReason =
  | "empty" // the parameter was present but empty
  | "repeated" // the parameter was given more than once
  | "not_a_string" // e.g. a nested `start_timestamp[x]=…` from a qs-style parser
  | "invalid_format" // not ISO-8601 / YYYY-MM-DD at all
  | "invalid_value" // well-formed but impossible: 2025-02-30, hour 25, offset +25:00
  | "out_of_range" // outside 0001-01-01T00:00:00Z … 9999-12-31T23:59:59.999Z
  | "start_not_before_end"; // both bounds given and start >= end

// A registry-wide brand, so `isMetricsWindowError` holds even when an app loads both the ESM and CJS copy.
const BRAND = Symbol.for("@a2a-partner/metrics-core/MetricsWindowError");

/**
 * A bad metrics window. The server maps it to HTTP 400 `application/problem+json`; `parameter` names the
 * offending query parameter (`start_timestamp` when the pair is inconsistent, start >= end: the start
 * is what moves the window back to order).
 */
export class MetricsWindowError extends Error {
  override readonly name = "MetricsWindowError";
  readonly parameter: MetricsWindowParameter;
  readonly reason: MetricsWindowErrorReason;
  readonly [BRAND] = true;

  constructor(parameter: MetricsWindowParameter, reason: MetricsWindowErrorReason, message: string) {
    super(message);
    this.parameter = parameter;
    this.reason = reason;
  }
}

export function isMetricsWindowError(value: unknown): value is MetricsWindowError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[BRAND] === true;
}

/** RFC 9457 problem details for a window error, ready to send as `application/problem+json`. */
export interface MetricsWindowProblem {
  type: "about:blank";
  title: "Bad Request";
  status: 400;
  detail: string;
  /** Extension members: which parameter (`start_timestamp` for start >= end) and the machine-readable reason. */
  parameter: MetricsWindowParameter;
  reason: MetricsWindowErrorReason;
}

export function metricsWindowProblem(error: MetricsWindowError): MetricsWindowProblem {
  return {
    type: "about:blank",
    title: "Bad Request",
    status: 400,
    detail: error.message,
    parameter: error.parameter,
    reason: error.reason,
  };
}
