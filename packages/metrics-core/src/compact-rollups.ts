import type { MetricsQueryable } from "./query-event-metrics.js";

/**
 * Folds the hourly deltas the rollup triggers appended into the daily and hourly rollups
 * (`metrics_compact_rollups()`, created by this package's migrations), and returns how many delta rows it folded.
 *
 * Answers are exact whether or not this runs (a query reads rollups plus deltas); it keeps the delta
 * tables small so queries stay cheap. Safe to call from any number of processes at once: a kind being
 * folded elsewhere is skipped, not waited for. Call it outside a transaction, or its advisory locks and
 * the deleted delta rows are held until that transaction ends.
 */
export async function compactMetricsRollups(db: MetricsQueryable): Promise<number> {
  const { rows } = await db.query("select metrics_compact_rollups()::text as folded", []);
  return Number((rows[0] as { folded: string } | undefined)?.folded ?? 0);
}
