import type { Queryable } from "@a2a-partner/postgres-store";
import type { WorkflowShare } from "./generate-options.ts";
import { ALERT_TYPES, bucketEdges, EVENT_TYPES, EXECUTION_STATUSES, type Timeline } from "./profile.ts";

// The set-based INSERT … SELECT of each batch (generate-metrics-data.ts runs them): every row drawn
// inside the database, nothing per row on the wire.

export interface BatchContext {
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

export async function insertTelemetry(tx: Queryable, c: BatchContext, first: number, last: number, n: number) {
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
export async function insertExecutions(
  tx: Queryable,
  c: BatchContext,
  workflowIds: string[],
  workflows: readonly WorkflowShare[],
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

export async function insertAlerts(tx: Queryable, c: BatchContext, first: number, last: number, n: number) {
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
