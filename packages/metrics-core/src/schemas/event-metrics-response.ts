import { z } from "zod";

/** A count: a non-negative safe integer (drivers hand bigint/numeric over as strings; we convert). */
const Count = z.number().int().min(0);

/** A UTC calendar day, `YYYY-MM-DD`. */
export const UtcDayString = z.string().regex(/^\d{4,}-\d{2}-\d{2}$/, "expected a UTC day YYYY-MM-DD");

/** A window bound echoed back: a UTC ISO-8601 timestamp such as 2026-01-01T00:00:00.000Z, or null. */
const Bound = z.iso.datetime().nullable();

export const TelemetryMetrics = z.object({
  total: Count,
  by_event_type: z.record(z.string(), Count),
  by_day: z.array(z.object({ day: UtcDayString, event_type: z.string(), count: Count })),
});
export type TelemetryMetrics = z.infer<typeof TelemetryMetrics>;

/** Shared by `workflow_executions` and `workflow_node_executions` (docs/contract.md, Metrics: the same shapes). */
export const WorkflowMetrics = z.object({
  total: Count,
  by_workflow: z.record(z.string(), z.object({ name: z.string(), count: Count })),
  by_day: z.array(z.object({ day: UtcDayString, workflow_uuid: z.string(), workflow_name: z.string(), count: Count })),
});
export type WorkflowMetrics = z.infer<typeof WorkflowMetrics>;

export const AlertMetrics = z.object({
  total: Count,
  by_alert_type: z.record(z.string(), Count),
  by_day: z.array(z.object({ day: UtcDayString, alert_type: z.string(), count: Count })),
});
export type AlertMetrics = z.infer<typeof AlertMetrics>;

/** The body of `GET /api/v1/metrics/events/{workspace}`. */
export const EventMetricsResponse = z.object({
  workspace_uuid: z.guid(),
  window: z.object({ start: Bound, end: Bound }),
  telemetry: TelemetryMetrics,
  workflow_executions: WorkflowMetrics,
  workflow_node_executions: WorkflowMetrics,
  alerts: AlertMetrics,
});
export type EventMetricsResponse = z.infer<typeof EventMetricsResponse>;
