import { parseArgs } from "node:util";
import { compactMetricsRollups, isMetricsWindowError, parseMetricsTimestamp } from "@a2a-partner/metrics-core";
import type { Database, Queryable } from "@a2a-partner/postgres-store";
import { z } from "zod";
import { AdminNotFoundError, AdminUsageError } from "../admin.ts";
import {
  ALERT_TYPES,
  ALERTS_PER_EVENT,
  batchSeed,
  bucketEdges,
  buildTimeline,
  EVENT_TYPES,
  EXECUTION_STATUSES,
  EXECUTIONS_PER_EVENT,
  type Timeline,
  workflowMix,
} from "./profile.ts";

export const GenerateOptions = z.object({
  /** Slug of an existing workspace. */
  workspace: z.string().min(1),
  /** Telemetry events to create; executions, node executions and alerts follow in proportion. */
  events: z.number().int().min(0).max(1_000_000_000),
  /** The records span the `days` × 24 h before `end`. */
  days: z.number().int().min(1).max(3660),
  /** Default: now. */
  end: z.date().optional(),
  /** The same seed (and the same other options) gives the same records, up to their random ids. */
  seed: z.number().int().min(0).max(2_147_483_647).default(1),
});
export type GenerateOptions = z.input<typeof GenerateOptions>;

export interface GenerateSummary {
  workspace: { uuid: string; slug: string };
  /** Every record lies in [start, end). */
  window: { start: string; end: string };
  seed: number;
  inserted: { telemetry_events: number; workflow_executions: number; workflow_node_executions: number; alerts: number };
  rows: number;
  ms: number;
  rows_per_second: number;
}

export interface GenerateProgress {
  table: "telemetry_events" | "workflow_executions" | "alerts";
  done: number;
  total: number;
}

export interface GenerateHooks {
  onProgress?: (progress: GenerateProgress) => void;
  /** Rows per statement (executions: per 5). Default 250 000. */
  batchSize?: number;
  /**
   * Fold the rollup deltas the batches appended into the rollups once they are all in (default true), so
   * a bulk load leaves no backlog for queries to scan. Once, not per batch: batches span the same hours,
   * so one fold updates each rollup row once. Off to measure the inserts alone.
   */
  foldRollups?: boolean;
}

const DAY_MS = 86_400_000;

/**
 * Bulk-loads realistic metrics records into a workspace with set-based SQL: each batch is one
 * `INSERT … SELECT … FROM generate_series` drawing times, types, robots and workflows inside the database,
 * so nothing per row crosses the wire. The inserts go into the raw tables, so the rollup triggers record
 * their counts, as for any other writer, and those deltas are folded into the rollups at the end. Each
 * batch commits on its own (a failure keeps whole batches).
 */
export async function generateMetricsData(
  db: Database,
  input: GenerateOptions,
  hooks: GenerateHooks = {},
): Promise<GenerateSummary> {
  const options = GenerateOptions.parse(input);
  const started = performance.now();
  const end = options.end ?? new Date();
  const start = new Date(end.getTime() - options.days * DAY_MS);
  const batchSize = Math.max(1, Math.floor(hooks.batchSize ?? 250_000));

  const workspace = await db.query<{ id: string; slug: string }>("select id, slug from workspaces where slug = $1", [
    options.workspace,
  ]);
  const ws = workspace.rows[0];
  if (!ws) throw new AdminNotFoundError(`no workspace with slug "${options.workspace}" (run \`pnpm cli seed\` first?)`);
  const robots = await db.query<{ id: string; environment_id: string }>(
    `select r.id, r.environment_id from robots r join environments e on e.id = r.environment_id
     where e.workspace_id = $1 order by e.store_id, r.name, r.id`,
    [ws.id],
  );
  const context: BatchContext = {
    workspaceId: ws.id,
    timeline: buildTimeline(start, end, options.seed),
    robotIds: robots.rows.map((r) => r.id),
    environmentIds: robots.rows.map((r) => r.environment_id),
  };
  const workflows = workflowMix();
  const workflowIds = await upsertWorkflows(
    db,
    ws.id,
    workflows.map((w) => w.name),
  );

  const counts = {
    telemetry_events: options.events,
    workflow_executions: Math.round(options.events * EXECUTIONS_PER_EVENT),
    alerts: Math.round(options.events * ALERTS_PER_EVENT),
  };
  let nodeExecutions = 0;
  const batches = async (
    table: GenerateProgress["table"],
    tableNumber: number,
    size: number,
    run: (tx: Queryable, first: number, last: number) => Promise<number | undefined>,
  ) => {
    const total = counts[table];
    for (let first = 1, batch = 0; first <= total; first += size, batch++) {
      const last = Math.min(first + size - 1, total);
      const extra = await db.transaction(async (tx) => {
        await tx.query("select setseed($1)", [batchSeed(options.seed, tableNumber, batch)]);
        return run(tx, first, last);
      });
      nodeExecutions += extra ?? 0;
      hooks.onProgress?.({ table, done: last, total });
    }
  };

  await batches("telemetry_events", 1, batchSize, (tx, first, last) =>
    insertTelemetry(tx, context, first, last, counts.telemetry_events).then(() => undefined),
  );
  await batches("workflow_executions", 2, Math.max(1, Math.floor(batchSize / 5)), (tx, first, last) =>
    insertExecutions(tx, context, workflowIds, workflows, first, last, counts.workflow_executions),
  );
  await batches("alerts", 3, batchSize, (tx, first, last) =>
    insertAlerts(tx, context, first, last, counts.alerts).then(() => undefined),
  );
  if (hooks.foldRollups !== false) await compactMetricsRollups(db);

  const ms = Math.round(performance.now() - started);
  const rows = counts.telemetry_events + counts.workflow_executions + nodeExecutions + counts.alerts;
  return {
    workspace: { uuid: ws.id, slug: ws.slug },
    window: { start: start.toISOString(), end: end.toISOString() },
    seed: options.seed,
    inserted: {
      telemetry_events: counts.telemetry_events,
      workflow_executions: counts.workflow_executions,
      workflow_node_executions: nodeExecutions,
      alerts: counts.alerts,
    },
    rows,
    ms,
    rows_per_second: ms > 0 ? Math.round((rows / ms) * 1000) : rows,
  };
}

interface BatchContext {
  workspaceId: string;
  timeline: Timeline;
  /** Robots of the workspace and, at the same index, their Environment; empty arrays give NULLs. */
  robotIds: string[];
  environmentIds: string[];
}

/** Numbered parameters by name, each bound once with its type. */
class Params {
  readonly values: unknown[] = [];
  private readonly names = new Map<string, string>();
  ref(name: string, value: unknown, type: string): string {
    let ref = this.names.get(name);
    if (!ref) {
      this.values.push(value);
      ref = `($${this.values.length}::${type})`;
      this.names.set(name, ref);
    }
    return ref;
  }
}

/**
 * SQL for "row g of n gets a time": u = (g - 1 + random()) / n is uniform and increasing in g, and the
 * timeline's inverse CDF maps it to seconds after the start (never reaching the end). Returns the
 * expressions for the subquery levels; `offset 0` keeps each random() evaluated once per row.
 */
function timeSql(p: Params, timeline: Timeline, n: number) {
  const offsets = p.ref("offsets", timeline.offsets, "float8[]");
  const cumulative = p.ref("cumulative", timeline.cumulative, "float8[]");
  const span = p.ref("span", timeline.spanSeconds, "float8");
  return {
    u: `(g - 1 + random()) / ${p.ref("n", n, "float8")}`,
    bucket: `width_bucket(u, ${cumulative})`,
    seconds:
      `least(${offsets}[i] + (u - ${cumulative}[i]) / (${cumulative}[i + 1] - ${cumulative}[i]) ` +
      `* (${offsets}[i + 1] - ${offsets}[i]), ${span} - 0.000001)`,
    span,
    at: (seconds: string) =>
      `${p.ref("start", timeline.start.toISOString(), "timestamptz")} + make_interval(secs => ${seconds})`,
  };
}

async function insertTelemetry(tx: Queryable, c: BatchContext, first: number, last: number, n: number) {
  const p = new Params();
  const time = timeSql(p, c.timeline, n);
  const types = p.ref(
    "types",
    EVENT_TYPES.map(([type]) => type),
    "text[]",
  );
  const typeEdges = p.ref("type_edges", bucketEdges(EVENT_TYPES.map(([, share]) => share)), "float8[]");
  const robots = p.ref("robots", c.robotIds, "uuid[]");
  const environments = p.ref("environments", c.environmentIds, "uuid[]");
  const robotCount = p.ref("robot_count", Math.max(1, c.robotIds.length), "int");
  await tx.query(
    `insert into telemetry_events (workspace_id, environment_id, robot_id, event_type, payload, occurred_at)
     select ${p.ref("ws", c.workspaceId, "uuid")}, ${environments}[ri], ${robots}[ri], event_type,
            case when event_type = 'battery.level' then jsonb_build_object('percent', 15 + floor(r1 * 85)::int)
                 else jsonb_build_object('x', floor(r1 * 120)::int, 'y', floor(r2 * 40)::int) end,
            ${time.at("seconds")}
     from (select *, ${time.seconds} as seconds
           from (select *, ${time.bucket} as i
                 from (select ${time.u} as u,
                              ${types}[width_bucket(random(), ${typeEdges})] as event_type,
                              1 + floor(random() * ${robotCount})::int as ri,
                              random() as r1, random() as r2
                       from generate_series(${p.ref("first", first, "bigint")}, ${p.ref("last", last, "bigint")}) g
                       offset 0) drawn
                 offset 0) bucketed
           offset 0) timed`,
    p.values,
  );
}

/** One statement writes a batch of executions and all their node executions (a data-modifying CTE). */
async function insertExecutions(
  tx: Queryable,
  c: BatchContext,
  workflowIds: string[],
  workflows: ReturnType<typeof workflowMix>,
  first: number,
  last: number,
  n: number,
): Promise<number> {
  const p = new Params();
  const time = timeSql(p, c.timeline, n);
  const ws = p.ref("ws", c.workspaceId, "uuid");
  const workflowEdges = p.ref("wf_edges", bucketEdges(workflows.map((w) => w.share)), "float8[]");
  const nodeCounts = p.ref(
    "node_counts",
    workflows.map((w) => w.nodes.length),
    "int[]",
  );
  const ids = p.ref("wf_ids", workflowIds, "uuid[]");
  const statuses = p.ref(
    "statuses",
    EXECUTION_STATUSES.map(([s]) => s),
    "text[]",
  );
  const statusEdges = p.ref("status_edges", bucketEdges(EXECUTION_STATUSES.map(([, share]) => share)), "float8[]");
  const nodes = workflows.flatMap((w, wi) => w.nodes.map((name, ni) => ({ wf: wi + 1, ordinal: ni + 1, name })));
  const result = await tx.query(
    `with gen as materialized (
       select gen_random_uuid() as id, wf, status, seconds, step,
              case when status = 'completed' then ${nodeCounts}[wf]
                   else 1 + floor(rn * ${nodeCounts}[wf])::int end as nodes_run
       from (select *,
                    -- 30 s … 5 min per node, shortened near the end so the whole run stays inside the span
                    least(30 + rs * 270, (${time.span} - seconds) / 6) as step
             from (select *, ${time.seconds} as seconds
                   from (select *, ${time.bucket} as i
                         from (select ${time.u} as u,
                                      width_bucket(random(), ${workflowEdges}) as wf,
                                      ${statuses}[width_bucket(random(), ${statusEdges})] as status,
                                      random() as rs, random() as rn
                               from generate_series(${p.ref("first", first, "bigint")}, ${p.ref("last", last, "bigint")}) g
                               offset 0) drawn
                         offset 0) bucketed
                   offset 0) timed
             offset 0) stepped
     ), executions as (
       insert into workflow_executions (id, workspace_id, workflow_id, status, started_at, finished_at)
       select id, ${ws}, ${ids}[wf], status, ${time.at("seconds")}, ${time.at("seconds + nodes_run * step")}
       from gen
     )
     insert into workflow_node_executions
       (workspace_id, workflow_execution_id, workflow_id, node_name, status, started_at, finished_at)
     select ${ws}, gen.id, ${ids}[gen.wf], node.name,
            case when node.ordinal < gen.nodes_run or gen.status = 'completed' then 'completed' else gen.status end,
            ${time.at("gen.seconds + (node.ordinal - 1) * gen.step")},
            ${time.at("gen.seconds + (node.ordinal - 0.1) * gen.step")}
     from gen
     join unnest(${p.ref(
       "node_wf",
       nodes.map((x) => x.wf),
       "int[]",
     )},
                 ${p.ref(
                   "node_ordinal",
                   nodes.map((x) => x.ordinal),
                   "int[]",
                 )},
                 ${p.ref(
                   "node_name",
                   nodes.map((x) => x.name),
                   "text[]",
                 )}) as node(wf, ordinal, name)
       on node.wf = gen.wf and node.ordinal <= gen.nodes_run`,
    p.values,
  );
  return result.rowCount;
}

async function insertAlerts(tx: Queryable, c: BatchContext, first: number, last: number, n: number) {
  const p = new Params();
  const time = timeSql(p, c.timeline, n);
  const robots = p.ref("robots", c.robotIds, "uuid[]");
  const environments = p.ref("environments", c.environmentIds, "uuid[]");
  const robotCount = p.ref("robot_count", Math.max(1, c.robotIds.length), "int");
  const edges = p.ref("alert_edges", bucketEdges(ALERT_TYPES.map(([, share]) => share)), "float8[]");
  await tx.query(
    `insert into alerts (workspace_id, environment_id, robot_id, alert_type, severity, message, occurred_at)
     select ${p.ref("ws", c.workspaceId, "uuid")}, ${environments}[ri], ${robots}[ri],
            ${p.ref(
              "alert_types",
              ALERT_TYPES.map(([t]) => t),
              "text[]",
            )}[k],
            ${p.ref(
              "severities",
              ALERT_TYPES.map(([, , s]) => s),
              "text[]",
            )}[k],
            ${p.ref(
              "messages",
              ALERT_TYPES.map(([, , , m]) => m),
              "text[]",
            )}[k],
            ${time.at("seconds")}
     from (select *, ${time.seconds} as seconds
           from (select *, ${time.bucket} as i
                 from (select ${time.u} as u, width_bucket(random(), ${edges}) as k,
                              1 + floor(random() * ${robotCount})::int as ri
                       from generate_series(${p.ref("first", first, "bigint")}, ${p.ref("last", last, "bigint")}) g
                       offset 0) drawn
                 offset 0) bucketed
           offset 0) timed`,
    p.values,
  );
}

async function upsertWorkflows(db: Queryable, workspaceId: string, names: string[]): Promise<string[]> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `insert into workflows (workspace_id, name) select $1, unnest($2::text[])
     on conflict (workspace_id, name) do update set name = excluded.name
     returning id, name`,
    [workspaceId, names],
  );
  const byName = new Map(rows.map((r) => [r.name, r.id]));
  return names.map((name) => byName.get(name) as string);
}

const USAGE = "generate --workspace <slug> --events N --days D [--seed S] [--end <ISO-8601>]";

/** Reads `generate`'s command-line arguments; a bad one is an AdminUsageError (the CLI exits 2). */
export function parseGenerateArgs(args: string[]): z.output<typeof GenerateOptions> {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        workspace: { type: "string" },
        events: { type: "string" },
        days: { type: "string" },
        seed: { type: "string" },
        end: { type: "string" },
      },
    }));
  } catch (error) {
    throw new AdminUsageError(`${error instanceof Error ? error.message : String(error)}\nusage: ${USAGE}`);
  }
  const integer = (name: string, value: string | undefined) => {
    if (value === undefined) return undefined;
    // Digits, optionally grouped with "_" (10_000_000), or a power-of-ten shorthand such as 1e6.
    if (!/^(\d+(_\d+)*|\d+e\d+)$/.test(value)) throw new AdminUsageError(`--${name} must be a whole number`);
    return Number(value.replaceAll("_", ""));
  };
  if (!values.workspace || values.events === undefined || values.days === undefined) {
    throw new AdminUsageError(`generate needs --workspace, --events and --days\nusage: ${USAGE}`);
  }
  let end: Date | undefined;
  if (values.end !== undefined) {
    try {
      end = parseMetricsTimestamp(values.end, "end_timestamp");
    } catch (error) {
      if (!isMetricsWindowError(error)) throw error;
      throw new AdminUsageError("--end must be an ISO-8601 timestamp or a date YYYY-MM-DD");
    }
  }
  const parsed = GenerateOptions.safeParse({
    workspace: values.workspace,
    events: integer("events", values.events),
    days: integer("days", values.days),
    seed: integer("seed", values.seed),
    end,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new AdminUsageError(`--${String(issue?.path[0] ?? "")}: ${issue?.message ?? "invalid"}`);
  }
  return parsed.data;
}
