import { randomUUID } from "node:crypto";
import type { EventMetricsResponse, MetricsWindow } from "../../src/index.js";
import type { TestDatabase } from "./databases.js";

/**
 * Records of one workspace, as the tests insert them. `at` is a UTC ISO string with up to microsecond
 * precision ("2026-01-01T00:00:00.000001Z"), like the timestamps PostgreSQL stores.
 */
export interface Dataset {
  workspaceId: string;
  workflows: { id: string; name: string }[];
  telemetry: { eventType: string; at: string }[];
  alerts: { alertType: string; at: string }[];
  executions: { id: string; workflowId: string; at: string }[];
  nodeExecutions: { id: string; executionId: string; workflowId: string; at: string }[];
}

export function emptyDataset(workflowNames: string[] = []): Dataset {
  return {
    workspaceId: randomUUID(),
    workflows: workflowNames.map((name) => ({ id: randomUUID(), name })),
    telemetry: [],
    alerts: [],
    executions: [],
    nodeExecutions: [],
  };
}

/** Telemetry events of one type (`e` unless named) at each of `times`. */
export function telemetryAt(times: readonly string[], eventType = "e"): Dataset["telemetry"] {
  return times.map((at) => ({ eventType, at }));
}

/** Microseconds since the epoch; exact for every year the tests use. */
export function micros(at: string | Date): bigint {
  if (at instanceof Date) return BigInt(at.getTime()) * 1000n;
  const match = /^(.{19})(?:\.(\d{1,6}))?Z$/.exec(at);
  if (match === null) throw new Error(`test timestamp must be UTC ISO: ${at}`);
  const fraction = (match[2] ?? "").padEnd(6, "0");
  return BigInt(Date.parse(`${match[1]}Z`)) * 1000n + BigInt(fraction);
}

/** The inverse of `micros` for instants after 1970. */
export function isoFromMicros(us: bigint): string {
  const ms = us / 1000n;
  const rest = us % 1000n;
  return `${new Date(Number(ms)).toISOString().slice(0, 23)}${String(rest).padStart(3, "0")}Z`;
}

/**
 * Inserts the dataset with one statement per table (so the statement-level triggers see batches), calling
 * `afterTable` after each raw table (e.g. to compact the rollups between them).
 */
export async function insertDataset(
  db: TestDatabase,
  ds: Dataset,
  { afterTable }: { afterTable?: () => Promise<unknown> } = {},
): Promise<void> {
  const json = (rows: unknown[]) => JSON.stringify(rows);
  if (ds.workflows.length > 0) {
    await db.query(
      `insert into workflows (id, workspace_id, name)
       select id, $1, name from jsonb_to_recordset($2::jsonb) as r(id uuid, name text)`,
      [ds.workspaceId, json(ds.workflows)],
    );
  }
  // Each record carries its index (payload.i / message), so tests can delete or move exact records.
  if (ds.telemetry.length > 0) {
    await db.query(
      `insert into telemetry_events (workspace_id, event_type, occurred_at, payload)
       select $1, event_type, at, jsonb_build_object('i', i)
       from jsonb_to_recordset($2::jsonb) as r(i int, event_type text, at timestamptz)`,
      [ds.workspaceId, json(ds.telemetry.map((t, i) => ({ i, event_type: t.eventType, at: t.at })))],
    );
  }
  await afterTable?.();
  if (ds.alerts.length > 0) {
    await db.query(
      `insert into alerts (workspace_id, alert_type, occurred_at, message)
       select $1, alert_type, at, i::text
       from jsonb_to_recordset($2::jsonb) as r(i int, alert_type text, at timestamptz)`,
      [ds.workspaceId, json(ds.alerts.map((a, i) => ({ i, alert_type: a.alertType, at: a.at })))],
    );
  }
  await afterTable?.();
  if (ds.executions.length > 0) {
    await db.query(
      `insert into workflow_executions (id, workspace_id, workflow_id, status, started_at)
       select id, $1, workflow_id, 'completed', at
       from jsonb_to_recordset($2::jsonb) as r(id uuid, workflow_id uuid, at timestamptz)`,
      [ds.workspaceId, json(ds.executions.map((e) => ({ id: e.id, workflow_id: e.workflowId, at: e.at })))],
    );
  }
  await afterTable?.();
  if (ds.nodeExecutions.length > 0) {
    await db.query(
      `insert into workflow_node_executions
         (id, workspace_id, workflow_execution_id, workflow_id, node_name, status, started_at)
       select id, $1, execution_id, workflow_id, 'node', 'completed', at
       from jsonb_to_recordset($2::jsonb) as r(id uuid, execution_id uuid, workflow_id uuid, at timestamptz)`,
      [
        ds.workspaceId,
        json(
          ds.nodeExecutions.map((n) => ({
            id: n.id,
            execution_id: n.executionId,
            workflow_id: n.workflowId,
            at: n.at,
          })),
        ),
      ],
    );
  }
  await afterTable?.();
}

interface Counted {
  day: string;
  key: string;
  count: number;
}

const byBucketThenKey = (a: Counted, b: Counted) =>
  a.day !== b.day ? (a.day < b.day ? -1 : 1) : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;

/**
 * Counts records per (bucket, key) in JS: the naive reference the database answers are held to. The bucket
 * is the UTC day (`YYYY-MM-DD`), or the UTC hour (`YYYY-MM-DDTHH`) when `hourly`.
 */
function countByBucketAndKey(
  records: { key: string; at: string }[],
  window: MetricsWindow | null,
  hourly = false,
): Counted[] {
  const start = window?.start == null ? null : micros(window.start);
  const end = window?.end == null ? null : micros(window.end);
  const counts = new Map<string, Counted>();
  for (const r of records) {
    const t = micros(r.at);
    if ((start !== null && t < start) || (end !== null && t >= end)) continue;
    const day = r.at.slice(0, hourly ? 13 : 10);
    const id = JSON.stringify([day, r.key]);
    const entry = counts.get(id) ?? { day, key: r.key, count: 0 };
    entry.count += 1;
    counts.set(id, entry);
  }
  return [...counts.values()].sort(byBucketThenKey);
}

export type SectionName = "telemetry" | "workflow_executions" | "workflow_node_executions" | "alerts";
const SECTION_NAMES: SectionName[] = ["telemetry", "workflow_executions", "workflow_node_executions", "alerts"];

function keyedRecords(ds: Dataset): Record<SectionName, { key: string; at: string }[]> {
  return {
    telemetry: ds.telemetry.map((t) => ({ key: t.eventType, at: t.at })),
    workflow_executions: ds.executions.map((e) => ({ key: e.workflowId, at: e.at })),
    workflow_node_executions: ds.nodeExecutions.map((n) => ({ key: n.workflowId, at: n.at })),
    alerts: ds.alerts.map((a) => ({ key: a.alertType, at: a.at })),
  };
}

type Rollups = Record<SectionName, { daily: Counted[]; hourly: Counted[] }>;

/** What the rollup tables must hold for this dataset (every record, no window). */
export function expectedRollups(ds: Dataset): Rollups {
  const records = keyedRecords(ds);
  return Object.fromEntries(
    SECTION_NAMES.map((section) => [
      section,
      {
        daily: countByBucketAndKey(records[section], null),
        hourly: countByBucketAndKey(records[section], null, true),
      },
    ]),
  ) as Rollups;
}

const ROLLUP_KEYS: Record<SectionName, [raw: string, key: string]> = {
  telemetry: ["telemetry_events", "event_type"],
  workflow_executions: ["workflow_executions", "workflow_id"],
  workflow_node_executions: ["workflow_node_executions", "workflow_id"],
  alerts: ["alerts", "alert_type"],
};

/**
 * What the rollups count for one workspace, in the same form as `expectedRollups`: the rollup rows plus the
 * deltas no compaction has folded into them yet (what a metrics query reads), or, with `stored`, the rollup
 * tables alone (after a compaction they must hold every count themselves, and no zero rows).
 */
export async function readRollups(
  db: TestDatabase,
  workspaceId: string,
  { stored = false }: { stored?: boolean } = {},
): Promise<Rollups> {
  const read = async (sql: string) => {
    const { rows } = await db.query<{ day: string; key: string; count: string }>(sql, [workspaceId]);
    return rows.map((r) => ({ day: r.day, key: r.key, count: Number(r.count) })).sort(byBucketThenKey);
  };
  // One rollup table per grain: its bucket column, and the text form the expected counts use for it.
  const grains = {
    daily: { column: "day", format: "YYYY-MM-DD" },
    hourly: { column: "hour", format: 'YYYY-MM-DD"T"HH24' },
  } as const;
  // Sums that are zero are no count at all; negative ones would be a bug and show up as such.
  const readGrain = (grain: keyof typeof grains, raw: string, key: string) => {
    const { column, format } = grains[grain];
    const rollup = `select to_char(${column}, '${format}') as day, ${key}::text as key, count::text as count
           from metrics_${grain}_${raw} where workspace_id = $1`;
    return read(
      stored
        ? rollup
        : `select day, key, sum(count::bigint)::text as count from (
           ${rollup}
           union all
           select to_char(hour_start at time zone 'UTC', '${format}') as day, ${key}::text as key, count::text as count
           from metrics_deltas_${raw} where workspace_id = $1
         ) parts group by day, key having sum(count::bigint) <> 0`,
    );
  };
  const result = {} as Rollups;
  for (const section of SECTION_NAMES) {
    const [raw, key] = ROLLUP_KEYS[section];
    result[section] = { daily: await readGrain("daily", raw, key), hourly: await readGrain("hourly", raw, key) };
  }
  return result;
}

/** Delta rows not folded into the rollups yet, over all kinds and workspaces. */
export async function pendingDeltas(db: TestDatabase): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    `select ((select count(*) from metrics_deltas_telemetry_events) + (select count(*) from metrics_deltas_alerts)
           + (select count(*) from metrics_deltas_workflow_executions)
           + (select count(*) from metrics_deltas_workflow_node_executions))::text as n`,
  );
  return Number(rows[0]?.n);
}

/** The full response a correct implementation must give, computed naively from the records in JS. */
export function naiveMetrics(ds: Dataset, window: MetricsWindow): EventMetricsResponse {
  const records = keyedRecords(ds);
  const names = new Map(ds.workflows.map((w) => [w.id, w.name]));
  const keyed = (section: SectionName) => countByBucketAndKey(records[section], window);
  const total = (rows: Counted[]) => rows.reduce((sum, r) => sum + r.count, 0);
  const byKey = (rows: Counted[]) => {
    const out: Record<string, number> = Object.create(null);
    for (const r of rows) out[r.key] = (out[r.key] ?? 0) + r.count;
    return { ...out };
  };
  const workflowSection = (section: SectionName) => {
    const rows = keyed(section);
    const byWorkflow: Record<string, { name: string; count: number }> = {};
    for (const r of rows) {
      byWorkflow[r.key] = { name: names.get(r.key) ?? "?", count: (byWorkflow[r.key]?.count ?? 0) + r.count };
    }
    return {
      total: total(rows),
      by_workflow: byWorkflow,
      by_day: rows.map((r) => ({
        day: r.day,
        workflow_uuid: r.key,
        workflow_name: names.get(r.key) ?? "?",
        count: r.count,
      })),
    };
  };
  const telemetry = keyed("telemetry");
  const alerts = keyed("alerts");
  return {
    workspace_uuid: ds.workspaceId,
    window: { start: window.start?.toISOString() ?? null, end: window.end?.toISOString() ?? null },
    telemetry: {
      total: total(telemetry),
      by_event_type: byKey(telemetry),
      by_day: telemetry.map((r) => ({ day: r.day, event_type: r.key, count: r.count })),
    },
    workflow_executions: workflowSection("workflow_executions"),
    workflow_node_executions: workflowSection("workflow_node_executions"),
    alerts: {
      total: total(alerts),
      by_alert_type: byKey(alerts),
      by_day: alerts.map((r) => ({ day: r.day, alert_type: r.key, count: r.count })),
    },
  };
}
