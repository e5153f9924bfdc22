import type { EventMetricsResponse } from "./schemas/event-metrics-response.js";
import { type EventMetricsRow, shapeEventMetrics } from "./shape/shape-event-metrics.js";
import { buildEventMetricsQueries } from "./sql/build-queries.js";
import { queryTelemetry, windowKind } from "./telemetry/query-telemetry.js";
import type { MetricsWindow } from "./window/parse-metrics-window.js";

/**
 * Anything that runs one parameterised statement: a `pg.Pool` / `pg.Client`, a PGlite instance, or the
 * postgres-store `Queryable`. Structural, so this package imports no driver.
 */
export interface MetricsQueryable {
  query(sql: string, params: unknown[]): Promise<{ rows: unknown[] }>;
}

/** Runs the metrics statement (one round trip) for a resolved workspace and shapes the response. */
export async function queryEventMetrics(
  db: MetricsQueryable,
  workspaceUuid: string,
  window: MetricsWindow,
): Promise<EventMetricsResponse> {
  const query = buildEventMetricsQueries(workspaceUuid, window);
  // Traced and timed through OpenTelemetry when the application registered an SDK (a no-op otherwise).
  const telemetry = queryTelemetry();
  const kind = windowKind(window);
  const span = telemetry.start(workspaceUuid, kind);
  const startedAt = performance.now();
  let rows: unknown[];
  try {
    ({ rows } = await db.query(query.text, query.values));
  } catch (error) {
    telemetry.end(span, kind, startedAt, error);
    throw error;
  }
  telemetry.end(span, kind, startedAt);
  return shapeEventMetrics(workspaceUuid, window, rows as EventMetricsRow[]);
}
