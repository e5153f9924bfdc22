// The public surface of @a2a-partner/metrics-core, name by name. Anything not listed here is internal
// (see src/internal/) and may change in any release; api/metrics-core.api.md is the reviewed report of it.

export { compactMetricsRollups } from "./compact-rollups.js";
export {
  createMetricsEventsEndpoint,
  type MetricsAuthResult,
  type MetricsEventsEndpointOptions,
  type MetricsEventsRequest,
  type MetricsRefusal,
} from "./endpoint/metrics-events-endpoint.js";
export {
  METHOD_NOT_ALLOWED_ANSWER,
  type MetricsAnswer,
  type MetricsProblem,
  MISSING_WORKSPACE_ANSWER,
} from "./endpoint/metrics-problems.js";
export { parseMetricsTimestamp } from "./internal/window/parse-timestamp.js";
export { metricsMigrations, metricsMigrationsDir } from "./migrations-dir.js";
export { type MetricsQueryable, type QueryEventMetricsOptions, queryEventMetrics } from "./query-event-metrics.js";
export {
  type AlertRecord,
  MetricsRecords,
  type MetricsRowWriter,
  type NodeExecutionRecord,
  type RecordSource,
  type TelemetryEventRecord,
  type WorkflowExecutionStart,
} from "./records/metrics-records.js";
export {
  ROLLUP_COMPACTION_INTERVAL_MS,
  type RollupCompaction,
  type RollupCompactionOptions,
  startRollupCompaction,
} from "./rollup-compaction.js";
export {
  AlertMetrics,
  EventMetricsResponse,
  TelemetryMetrics,
  UtcDayString,
  WorkflowMetrics,
} from "./schemas/event-metrics-response.js";
export { type EventMetricsRow, shapeEventMetrics } from "./shape/shape-event-metrics.js";
export {
  buildEventMetricsQueries,
  buildRawEventMetricsQueries,
  type EventMetricsQueries,
  type SqlQuery,
} from "./sql/build-queries.js";
export {
  isMetricsWindowError,
  MetricsWindowError,
  type MetricsWindowErrorReason,
  type MetricsWindowParameter,
  type MetricsWindowProblem,
  metricsWindowProblem,
} from "./window/metrics-window-error.js";
export { type MetricsWindow, type MetricsWindowQuery, parseMetricsWindow } from "./window/parse-metrics-window.js";
