import { compactMetricsRollups } from "@a2a-partner/metrics-core";
import type { Database, Queryable } from "@a2a-partner/postgres-store";
import { type BatchContext, insertAlerts, insertExecutions, insertTelemetry } from "./batch-inserts.ts";
import {
  type GenerateHooks,
  GenerateNotFoundError,
  GenerateOptions,
  type GenerateProgress,
  type GenerateSummary,
} from "./generate-options.ts";
import { ALERTS_PER_EVENT, batchSeed, buildTimeline, EXECUTIONS_PER_EVENT } from "./profile.ts";

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
  hooks: GenerateHooks,
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
  if (!ws)
    throw new GenerateNotFoundError(`no workspace with slug "${options.workspace}" (run \`pnpm cli seed\` first?)`);
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
  const workflows = hooks.workflows;
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
