import type { EventMetricsResponse } from "./schemas/event-metrics-response.js";
import { type EventMetricsRow, shapeEventMetrics } from "./shape/shape-event-metrics.js";
import { buildEventMetricsQueries } from "./sql/build-queries.js";
import { metricsStatementName } from "./sql/statement-name.js";
import { queryTelemetry, windowKind } from "./telemetry/query-telemetry.js";
import type { MetricsWindow } from "./window/parse-metrics-window.js";

/**
 * Anything that runs one parameterised statement: a `pg.Pool` / `pg.Client`, a PGlite instance, or the
 * postgres-store `Queryable`. Structural, so this package imports no driver.
 */
export interface MetricsQueryable {
  query(sql: string, params: unknown[]): Promise<{ rows: unknown[] }>;
}

/** How `queryEventMetrics` hands its statement to the database. */
export interface QueryEventMetricsOptions {
  /**
   * Run the statement under a stable name per shape, passed as `db.query(sql, params, { name })`, so the
   * database parses it once per connection and, once it settles on a generic plan, stops planning it
   * (0.2–0.5 ms a request on PostgreSQL, 1–3 ms on PGlite, where planning runs in WASM). Only for a
   * handle whose third argument is such options: postgres-store's `Database` / `Queryable` (PostgreSQL
   * and PGlite). A `pg.Pool` or `pg.Client` takes a callback there: leave this off for them. Default false.
   */
  readonly namedStatement?: boolean;
}

type NamedQueryable = {
  query(sql: string, params: unknown[], options: { name: string }): Promise<{ rows: unknown[] }>;
};

/** Runs the metrics statement (one round trip) for a resolved workspace and shapes the response. */
export async function queryEventMetrics(
  db: MetricsQueryable,
  workspaceUuid: string,
  window: MetricsWindow,
  options: QueryEventMetricsOptions = {},
): Promise<EventMetricsResponse> {
  const query = buildEventMetricsQueries(workspaceUuid, window);
  const name = options.namedStatement === true ? metricsStatementName(query.text) : undefined;
  // Traced and timed through OpenTelemetry when the application registered an SDK (a no-op otherwise).
  const telemetry = queryTelemetry();
  const kind = windowKind(window);
  const span = telemetry.start(workspaceUuid, kind);
  const startedAt = performance.now();
  let rows: unknown[];
  try {
    ({ rows } =
      name === undefined
        ? await db.query(query.text, query.values)
        : await (db as unknown as NamedQueryable).query(query.text, query.values, { name }));
  } catch (error) {
    telemetry.end(span, kind, startedAt, error);
    throw error;
  }
  telemetry.end(span, kind, startedAt);
  return shapeEventMetrics(workspaceUuid, window, rows as EventMetricsRow[]);
}
