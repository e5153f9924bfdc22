/** The four counted record kinds, in response order. */
export const METRICS_SECTIONS = ["telemetry", "workflow_executions", "workflow_node_executions", "alerts"] as const;

export type MetricsSection = (typeof METRICS_SECTIONS)[number];

export interface SectionTables {
  /** Raw table and the timestamp column that places a record in a day. */
  readonly raw: string;
  readonly time: "occurred_at" | "started_at";
  /** Daily rollup table `(workspace_id, day date, key, count)` (this package's migrations/). */
  readonly rollup: string;
  /** Hourly rollup table `(workspace_id, hour timestamp, key, count)`, hours in UTC wall-clock time. */
  readonly hourlyRollup: string;
  /**
   * Hourly deltas not yet folded into the rollups `(workspace_id, hour_start timestamptz, key, count)`,
   * appended by the raw table's triggers (migrations/0001_metrics.sql): a count is rollup plus deltas.
   */
  readonly deltas: string;
  /** The grouping key column, the same name in raw and rollup tables. */
  readonly key: "event_type" | "alert_type" | "workflow_id";
  /** Keyed by workflow: names come from `workflows.name`. */
  readonly byWorkflow: boolean;
}

/** The one table of which section lives where. Identifiers only: values never go into SQL text. */
export const SECTION_TABLES: Readonly<Record<MetricsSection, SectionTables>> = {
  telemetry: {
    raw: "telemetry_events",
    time: "occurred_at",
    rollup: "metrics_daily_telemetry_events",
    hourlyRollup: "metrics_hourly_telemetry_events",
    deltas: "metrics_deltas_telemetry_events",
    key: "event_type",
    byWorkflow: false,
  },
  workflow_executions: {
    raw: "workflow_executions",
    time: "started_at",
    rollup: "metrics_daily_workflow_executions",
    hourlyRollup: "metrics_hourly_workflow_executions",
    deltas: "metrics_deltas_workflow_executions",
    key: "workflow_id",
    byWorkflow: true,
  },
  workflow_node_executions: {
    raw: "workflow_node_executions",
    time: "started_at",
    rollup: "metrics_daily_workflow_node_executions",
    hourlyRollup: "metrics_hourly_workflow_node_executions",
    deltas: "metrics_deltas_workflow_node_executions",
    key: "workflow_id",
    byWorkflow: true,
  },
  alerts: {
    raw: "alerts",
    time: "occurred_at",
    rollup: "metrics_daily_alerts",
    hourlyRollup: "metrics_hourly_alerts",
    deltas: "metrics_deltas_alerts",
    key: "alert_type",
    byWorkflow: false,
  },
};
