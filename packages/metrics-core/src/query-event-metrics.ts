import type { EventMetricsResponse } from "./schemas/event-metrics-response.js";
import { type EventMetricsRow, shapeEventMetrics } from "./shape/shape-event-metrics.js";
import { buildEventMetricsQueries } from "./sql/build-queries.js";
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
  const { rows } = await db.query(query.text, query.values);
  return shapeEventMetrics(workspaceUuid, window, rows as EventMetricsRow[]);
}
