import { METRICS_SECTIONS, type MetricsSection } from "../internal/sql/sections.js";
import type {
  AlertMetrics,
  EventMetricsResponse,
  TelemetryMetrics,
  WorkflowMetrics,
} from "../schemas/event-metrics-response.js";
import type { MetricsWindow } from "../window/parse-metrics-window.js";

/** One row of the metrics statements: a count of one key on one UTC day in one section. */
export interface EventMetricsRow {
  readonly section: MetricsSection;
  readonly day: string;
  readonly key: string;
  /** The workflow name for the workflow sections; null otherwise. */
  readonly name: string | null;
  /** pg and PGlite return bigint/numeric as strings; some drivers use number or bigint. */
  readonly count: string | number | bigint;
}

const SECTIONS = new Set<string>(METRICS_SECTIONS);
const DAY = /^\d{4,}-\d{2}-\d{2}$/;

function toCount(value: unknown): number {
  const count =
    typeof value === "number"
      ? value
      : typeof value === "bigint"
        ? Number(value)
        : typeof value === "string" && /^\d+$/.test(value)
          ? Number(value)
          : Number.NaN;
  if (!Number.isSafeInteger(count) || count < 0) {
    throw new TypeError(`metrics row count is not a non-negative safe integer: ${String(value).slice(0, 32)}`);
  }
  return count;
}

/** Rows come from a database: check them once here, so a schema drift fails loudly instead of miscounting. */
function checkRow(row: unknown): EventMetricsRow {
  const r = row as Partial<Record<keyof EventMetricsRow, unknown>> | null;
  if (
    typeof r !== "object" ||
    r === null ||
    typeof r.section !== "string" ||
    !SECTIONS.has(r.section) ||
    typeof r.day !== "string" ||
    !DAY.test(r.day) ||
    typeof r.key !== "string" ||
    (r.name !== null && r.name !== undefined && typeof r.name !== "string")
  ) {
    throw new TypeError("unexpected metrics row shape (does the database schema match metrics-core?)");
  }
  return row as EventMetricsRow;
}

interface Bucket {
  day: string;
  key: string;
  name: string | null;
  count: number;
}

/** Code-unit order, so the result does not depend on the database collation or the host locale. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function collect(rows: readonly EventMetricsRow[]): Map<MetricsSection, Bucket[]> {
  const byKey = new Map<MetricsSection, Map<string, Bucket>>(METRICS_SECTIONS.map((s) => [s, new Map()]));
  for (const raw of rows) {
    const row = checkRow(raw);
    const count = toCount(row.count);
    if (count === 0) continue; // by_day is sparse
    const buckets = byKey.get(row.section) as Map<string, Bucket>;
    const id = `${row.day}\u0000${row.key}`;
    const bucket = buckets.get(id);
    // Rows for one (day, key) may arrive split (e.g. per-shard queries): add them up.
    if (bucket === undefined) buckets.set(id, { day: row.day, key: row.key, name: row.name ?? null, count });
    else bucket.count += count;
  }
  return new Map(
    [...byKey].map(([section, buckets]) => [
      section,
      [...buckets.values()].sort((a, b) => compare(a.day, b.day) || compare(a.key, b.key)),
    ]),
  );
}

/** Totals per key; built with `Object.fromEntries` so a key such as `__proto__` stays an own property. */
function countsByKey(buckets: readonly Bucket[]): Record<string, number> {
  const totals = new Map<string, number>();
  for (const b of buckets) totals.set(b.key, (totals.get(b.key) ?? 0) + b.count);
  return Object.fromEntries(totals);
}

function total(buckets: readonly Bucket[]): number {
  return buckets.reduce((sum, b) => sum + b.count, 0);
}

function telemetry(buckets: readonly Bucket[]): TelemetryMetrics {
  return {
    total: total(buckets),
    by_event_type: countsByKey(buckets),
    by_day: buckets.map((b) => ({ day: b.day, event_type: b.key, count: b.count })),
  };
}

function alerts(buckets: readonly Bucket[]): AlertMetrics {
  return {
    total: total(buckets),
    by_alert_type: countsByKey(buckets),
    by_day: buckets.map((b) => ({ day: b.day, alert_type: b.key, count: b.count })),
  };
}

function workflows(buckets: readonly Bucket[]): WorkflowMetrics {
  const byWorkflow = new Map<string, { name: string; count: number }>();
  for (const b of buckets) {
    const entry = byWorkflow.get(b.key);
    if (entry === undefined) byWorkflow.set(b.key, { name: b.name ?? "", count: b.count });
    else entry.count += b.count;
  }
  return {
    total: total(buckets),
    by_workflow: Object.fromEntries(byWorkflow),
    by_day: buckets.map((b) => ({
      day: b.day,
      workflow_uuid: b.key,
      workflow_name: b.name ?? "",
      count: b.count,
    })),
  };
}

/**
 * Turns the rows of `buildEventMetricsQueries` (or the raw variant) into the contract's response object:
 * integer counts, sparse `by_day` sorted by day then key, the window echoed as UTC ISO strings.
 */
export function shapeEventMetrics(
  workspaceUuid: string,
  window: MetricsWindow,
  rows: readonly EventMetricsRow[],
): EventMetricsResponse {
  const sections = collect(rows);
  const of = (section: MetricsSection) => sections.get(section) as Bucket[];
  return {
    workspace_uuid: workspaceUuid,
    window: {
      start: window.start === null ? null : window.start.toISOString(),
      end: window.end === null ? null : window.end.toISOString(),
    },
    telemetry: telemetry(of("telemetry")),
    workflow_executions: workflows(of("workflow_executions")),
    workflow_node_executions: workflows(of("workflow_node_executions")),
    alerts: alerts(of("alerts")),
  };
}
