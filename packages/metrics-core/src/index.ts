export { compactMetricsRollups } from "./compact-rollups.js";
export { type MetricsQueryable, queryEventMetrics } from "./query-event-metrics.js";
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
export { type EventMetricsPlan, type OpenTimeRange, planEventMetricsWindow, type RawRange } from "./internal/sql/plan.js";
export { METRICS_SECTIONS, type MetricsSection, SECTION_TABLES, type SectionTables } from "./internal/sql/sections.js";
export {
  addUtcDays,
  type DayRange,
  isUtcMidnight,
  MS_PER_DAY,
  MS_PER_HOUR,
  splitByUnit,
  splitUtcWindow,
  startOfUtcDay,
  type TimeRange,
  type UnitSplit,
  type UtcWindowSplit,
  utcDay,
  utcTimestampLiteral,
} from "./internal/utc-days.js";
export {
  isMetricsWindowError,
  MetricsWindowError,
  type MetricsWindowErrorReason,
  type MetricsWindowParameter,
  type MetricsWindowProblem,
  metricsWindowProblem,
} from "./window/metrics-window-error.js";
export { type MetricsWindow, type MetricsWindowQuery, parseMetricsWindow } from "./window/parse-metrics-window.js";
export { EARLIEST_BOUND, LATEST_BOUND_EXCLUSIVE, parseMetricsTimestamp } from "./internal/window/parse-timestamp.js";
