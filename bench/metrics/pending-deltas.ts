/**
 * What unfolded rollup deltas cost a query. The triggers append deltas that a compaction folds into the
 * rollups every few seconds, and a query reads rollups plus the deltas still pending. This loads more
 * records into the measured workspace in small statements without folding (each statement of 1,000
 * events over the whole span leaves ~1,000 delta rows, far more than a live writer's statements of the
 * current hour), checks the answer against a raw count, and times the query with that backlog, the fold
 * and the query again.
 */
import { workflowMix } from "@a2a-partner/example-server/fleet/workflow-mix";
import { generateMetricsData } from "@a2a-partner/metrics-generator";
import { type Database, metrics } from "./setup.ts";
import { median, quantile, time } from "./stats.ts";

type MetricsWindow = import("../../packages/metrics-core/dist/index.js").MetricsWindow;

export interface PendingDeltasRun {
  events: number;
  /** Delta rows pending, over the four kinds and all workspaces, before the fold. */
  deltaRows: number;
  pending: { median: number; p95: number };
  foldMs: number;
  folded: { median: number; p95: number };
}

export interface PendingDeltasOptions {
  db: Database;
  workspace: { id: string; slug: string };
  window: MetricsWindow;
  events: number;
  days: number;
  end: Date;
  runs: number;
}

export async function measurePendingDeltas(options: PendingDeltasOptions): Promise<PendingDeltasRun> {
  const { db, workspace, window } = options;
  await generateMetricsData(
    db,
    { workspace: workspace.slug, events: options.events, days: options.days, end: options.end, seed: 2 },
    { batchSize: 1_000, foldRollups: false, workflows: workflowMix() },
  );
  const { rows } = await db.query<{ n: number }>(
    `select ((select count(*) from metrics_deltas_telemetry_events) + (select count(*) from metrics_deltas_alerts)
           + (select count(*) from metrics_deltas_workflow_executions)
           + (select count(*) from metrics_deltas_workflow_node_executions))::int as n`,
  );
  const run = async (q: { text: string; values: string[] }) => {
    const result = await db.query(q.text, q.values);
    return metrics.shapeEventMetrics(workspace.id, window, result.rows as never);
  };
  const rollup = metrics.buildEventMetricsQueries(workspace.id, window);
  const raw = metrics.buildRawEventMetricsQueries(workspace.id, window);
  if (JSON.stringify(await run(rollup)) !== JSON.stringify(await run(raw))) {
    throw new Error("with pending deltas, the rollup and raw answers differ");
  }
  const pending = await time(() => run(rollup), options.runs, 3);
  const folding = performance.now();
  await metrics.compactMetricsRollups(db);
  const foldMs = performance.now() - folding;
  const folded = await time(() => run(rollup), options.runs, 3);
  return {
    events: options.events,
    deltaRows: rows[0]?.n ?? 0,
    pending: { median: median(pending), p95: quantile(pending, 0.95) },
    foldMs,
    folded: { median: median(folded), p95: quantile(folded, 0.95) },
  };
}
