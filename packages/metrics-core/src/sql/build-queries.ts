import { type EventMetricsPlan, planEventMetricsWindow } from "../internal/sql/plan.js";
import { METRICS_SECTIONS, type MetricsSection, SECTION_TABLES, type SectionTables } from "../internal/sql/sections.js";
import { SqlParams } from "../internal/sql/sql-params.js";
import { isUtcMidnight, utcDay, utcTimestampLiteral } from "../internal/utc-days.js";
import type { MetricsWindow } from "../window/parse-metrics-window.js";

/** One parameterised statement: pass `text` and `values` straight to `db.query`. */
export interface SqlQuery {
  readonly text: string;
  readonly values: string[];
}

/**
 * The combined statement (all four sections in one round trip) plus each section on its own, for
 * EXPLAIN and benchmarks. Every statement returns rows of
 * `(section text, day text 'YYYY-MM-DD', key text, name text|null, count text)`, sparse, unordered.
 */
export interface EventMetricsQueries extends SqlQuery {
  readonly sections: Readonly<Record<MetricsSection, SqlQuery>>;
}

// The same check as postgres-store's exported isUuid: metrics-core depends on no other package of the
// workspace (it runs over any Queryable), so it keeps this one line of its own.
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function assertInputs(workspaceUuid: string, window: MetricsWindow): void {
  if (typeof workspaceUuid !== "string" || !UUID.test(workspaceUuid)) {
    throw new TypeError("workspaceUuid must be a UUID (resolve slugs before querying metrics)");
  }
  for (const bound of [window.start, window.end]) {
    if (bound !== null && !(bound instanceof Date && Number.isFinite(bound.getTime()))) {
      throw new TypeError("window bounds must be valid Dates or null (use parseMetricsWindow)");
    }
  }
  if (window.start !== null && window.end !== null && window.start >= window.end) {
    throw new RangeError("window start must be earlier than its end (use parseMetricsWindow)");
  }
}

/**
 * A statement that calls this PARALLEL UNSAFE function is never planned with parallel workers
 * (migrations/0004_metrics_serial_plan.sql): the rollup statement reads a few thousand rows, and starting
 * workers cost more than the whole serial statement (an unaligned 45-day window at 1M events: 10–11 ms
 * against 4–5 ms). Immutable, so it is folded to `true` at planning: nothing runs per row or per call.
 */
const SERIAL_PLAN = "metrics_serial_plan()";

/**
 * Wraps per-day partial counts `(day date, key, n bigint)` into the common row shape; `serial` keeps the
 * statement off parallel workers (the raw baseline keeps them: a full scan is what they are for).
 */
function wrapSection(section: MetricsSection, tables: SectionTables, parts: string[], serial: boolean): string {
  const name = tables.byWorkflow ? "w.name" : "null::text";
  const join = tables.byWorkflow ? "\n  left join workflows w on w.id = c.key" : "";
  return (
    `select '${section}'::text as section, to_char(c.day, 'YYYY-MM-DD') as day, c.key::text as key, ` +
    `${name} as name, c.n::text as count\nfrom (\n  select day, key, sum(n) as n from (\n    ` +
    parts.join("\n    union all\n    ") +
    "\n  ) parts group by day, key having sum(n) > 0\n) c" +
    join +
    (serial ? `\nwhere ${SERIAL_PLAN}` : "")
  );
}

function rawPart(
  tables: SectionTables,
  params: SqlParams,
  workspace: string,
  start: Date | null,
  end: Date | null,
  sign: 1 | -1,
): string {
  const conditions = [`workspace_id = ${workspace}`];
  if (start !== null) conditions.push(`${tables.time} >= ${params.ref(utcTimestampLiteral(start), "timestamptz")}`);
  if (end !== null) conditions.push(`${tables.time} < ${params.ref(utcTimestampLiteral(end), "timestamptz")}`);
  return (
    `select (${tables.time} at time zone 'UTC')::date as day, ${tables.key} as key, ` +
    `${sign < 0 ? "-" : ""}count(*) as n from ${tables.raw} where ${conditions.join(" and ")} group by 1, 2`
  );
}

/**
 * A whole hour as a `timestamptz` (delta hours are stored as instants), spelled with the same value and
 * type as the rollup bound it coincides with (a day, or a UTC wall-clock hour) so they share a placeholder,
 * and converted explicitly at UTC: a plain cast would use the session's TimeZone.
 */
function utcInstant(params: SqlParams, hour: Date): string {
  const wallClock = isUtcMidnight(hour)
    ? `${params.ref(utcDay(hour), "date")}::timestamp`
    : params.ref(utcTimestampLiteral(hour).slice(0, -1), "timestamp");
  return `(${wallClock} at time zone 'UTC')`;
}

function rollupSection(section: MetricsSection, plan: EventMetricsPlan, params: SqlParams, workspaceUuid: string) {
  const tables = SECTION_TABLES[section];
  const workspace = params.ref(workspaceUuid, "uuid");
  const parts: string[] = [];
  if (plan.rollupDays !== null) {
    const conditions = [`workspace_id = ${workspace}`];
    const { from, to } = plan.rollupDays;
    if (from !== null) conditions.push(`day >= ${params.ref(from, "date")}`);
    if (to !== null) conditions.push(`day < ${params.ref(to, "date")}`);
    parts.push(`select day, ${tables.key} as key, count as n from ${tables.rollup} where ${conditions.join(" and ")}`);
  }
  for (const hours of plan.rollupHours) {
    // Hours are stored as UTC wall-clock `timestamp`, so the literal carries no zone.
    const from = params.ref(utcTimestampLiteral(hours.start).slice(0, -1), "timestamp");
    const to = params.ref(utcTimestampLiteral(hours.end).slice(0, -1), "timestamp");
    parts.push(
      `select hour::date as day, ${tables.key} as key, count as n from ${tables.hourlyRollup} ` +
        `where workspace_id = ${workspace} and hour >= ${from} and hour < ${to}`,
    );
  }
  if (plan.deltaHours !== null) {
    // The deltas of every hour the rollup parts count (their hours and days always make one range).
    const conditions = [`workspace_id = ${workspace}`];
    const { start, end } = plan.deltaHours;
    if (start !== null) conditions.push(`hour_start >= ${utcInstant(params, start)}`);
    if (end !== null) conditions.push(`hour_start < ${utcInstant(params, end)}`);
    parts.push(
      `select (hour_start at time zone 'UTC')::date as day, ${tables.key} as key, count as n ` +
        `from ${tables.deltas} where ${conditions.join(" and ")}`,
    );
  }
  for (const range of plan.raw) {
    parts.push(rawPart(tables, params, workspace, range.start, range.end, range.sign));
  }
  return wrapSection(section, tables, parts, true);
}

function rawSection(section: MetricsSection, window: MetricsWindow, params: SqlParams, workspaceUuid: string) {
  const tables = SECTION_TABLES[section];
  const workspace = params.ref(workspaceUuid, "uuid");
  return wrapSection(section, tables, [rawPart(tables, params, workspace, window.start, window.end, 1)], false);
}

type SectionBuilder = (section: MetricsSection, params: SqlParams) => string;

function assemble(build: SectionBuilder): EventMetricsQueries {
  const shared = new SqlParams();
  const text = METRICS_SECTIONS.map((section) => `(${build(section, shared)})`).join("\nunion all\n");
  const sections = Object.fromEntries(
    METRICS_SECTIONS.map((section) => {
      const params = new SqlParams();
      return [section, { text: build(section, params), values: params.values }];
    }),
  ) as Record<MetricsSection, SqlQuery>;
  return { text, values: shared.values, sections };
}

/**
 * Windowed counts for one workspace, read from the daily rollups for whole UTC days, the hourly rollups
 * for the whole hours of a partial first/last day, and raw rows only for a partial first/last hour (see
 * `planEventMetricsWindow`), plus the hourly deltas of those days and hours that no compaction has folded
 * into the rollups yet. Cost grows with days × keys plus at most half an hour of raw rows per unaligned
 * edge and the (small, compacted every few seconds) delta tables; the answer equals a raw count exactly,
 * whether or not a compaction ran.
 */
export function buildEventMetricsQueries(workspaceUuid: string, window: MetricsWindow): EventMetricsQueries {
  assertInputs(workspaceUuid, window);
  const plan = planEventMetricsWindow(window);
  return assemble((section, params) => rollupSection(section, plan, params, workspaceUuid));
}

/** The naive raw-table GROUP BY over the same window: the baseline for benchmarks and exactness tests. */
export function buildRawEventMetricsQueries(workspaceUuid: string, window: MetricsWindow): EventMetricsQueries {
  assertInputs(workspaceUuid, window);
  return assemble((section, params) => rawSection(section, window, params, workspaceUuid));
}
