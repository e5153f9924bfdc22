import { parseMetricsTimestamp } from "../internal/window/parse-timestamp.js";
import { MetricsWindowError, type MetricsWindowParameter } from "./metrics-window-error.js";

/** A validated window: start inclusive, end exclusive, null for an absent bound. */
export interface MetricsWindow {
  readonly start: Date | null;
  readonly end: Date | null;
}

/**
 * The raw query parameters, as any framework hands them over: Express/qs give strings, arrays for repeated
 * parameters and objects for `a[b]=c`; `URLSearchParams` is read with `getAll` so repeats are caught too.
 */
export type MetricsWindowQuery =
  | { readonly start_timestamp?: unknown; readonly end_timestamp?: unknown }
  | URLSearchParams;

function isSearchParams(query: MetricsWindowQuery): query is URLSearchParams {
  return typeof (query as URLSearchParams).getAll === "function";
}

function readBound(query: MetricsWindowQuery, parameter: MetricsWindowParameter): Date | null {
  let value: unknown;
  if (isSearchParams(query)) {
    const all = query.getAll(parameter);
    value = all.length === 0 ? undefined : all.length === 1 ? all[0] : all;
  } else {
    value = query[parameter];
  }
  if (value === undefined || value === null) return null;
  if (Array.isArray(value)) {
    throw new MetricsWindowError(parameter, "repeated", `${parameter} must be given at most once`);
  }
  if (typeof value !== "string") {
    throw new MetricsWindowError(parameter, "not_a_string", `${parameter} must be a single timestamp string`);
  }
  if (value === "") {
    throw new MetricsWindowError(
      parameter,
      "empty",
      `${parameter} is empty; omit it for an open bound or give an ISO-8601 timestamp`,
    );
  }
  return parseMetricsTimestamp(value, parameter);
}

/**
 * Reads and validates `start_timestamp` / `end_timestamp`. Throws `MetricsWindowError` for anything the
 * server must answer with HTTP 400. Pure: it never looks at the clock, so an open end stays open.
 */
export function parseMetricsWindow(query: MetricsWindowQuery): MetricsWindow {
  const start = readBound(query, "start_timestamp");
  const end = readBound(query, "end_timestamp");
  if (start !== null && end !== null && start.getTime() >= end.getTime()) {
    throw new MetricsWindowError(
      "start_timestamp",
      "start_not_before_end",
      `start_timestamp (${start.toISOString()}) must be earlier than end_timestamp (${end.toISOString()}): ` +
        "the window is start-inclusive and end-exclusive",
    );
  }
  return { start, end };
}
