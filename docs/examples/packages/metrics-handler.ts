// #region snippet
import {
  isMetricsWindowError,
  type MetricsQueryable,
  type MetricsWindow,
  metricsWindowProblem,
  parseMetricsWindow,
  queryEventMetrics,
} from "@a2a-partner/metrics-core";

// `db` is anything with `query(sql, params) → Promise<{ rows }>`: a pg.Pool, a PGlite instance, or the
// postgres-store `Queryable`. `workspaceUuid` is already resolved (UUID or slug) and access-checked.
async function metricsHandler(request: Request, db: MetricsQueryable, workspaceUuid: string): Promise<Response> {
  let window: MetricsWindow;
  try {
    window = parseMetricsWindow(new URL(request.url).searchParams);
  } catch (error) {
    if (!isMetricsWindowError(error)) throw error;
    return Response.json(metricsWindowProblem(error), {
      status: 400,
      headers: { "content-type": "application/problem+json" },
    });
  }
  return Response.json(await queryEventMetrics(db, workspaceUuid, window));
}
// #endregion snippet
export { metricsHandler };
