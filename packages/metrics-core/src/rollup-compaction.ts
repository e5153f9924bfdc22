import { startPeriodicJob } from "@a2a-partner/a2a-core";
import { compactMetricsRollups } from "./compact-rollups.js";
import type { MetricsQueryable } from "./query-event-metrics.js";

/**
 * How often a server folds the metrics deltas into the rollups by default. Answers are exact either way
 * (a query reads rollups plus pending deltas); folding keeps the delta tables, which queries scan, to a
 * few seconds of writes.
 */
export const ROLLUP_COMPACTION_INTERVAL_MS = 5_000;

/** Options of `startRollupCompaction`. */
export interface RollupCompactionOptions {
  /** Time between folds. Default `ROLLUP_COMPACTION_INTERVAL_MS` (5 s). */
  intervalMs?: number;
  /** A fold failed (a slow or unreachable database, say); the timer keeps going. Log it here. */
  onError?: (error: unknown) => void;
}

/** A running compaction timer (`startRollupCompaction`). */
export interface RollupCompaction {
  /** Stops the timer and waits for a fold in progress, so the database can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Folds the metrics deltas on a timer (`compactMetricsRollups`). Every instance runs one: a kind another
 * instance is folding is skipped, not waited for. A tick is skipped while the previous fold still runs,
 * and the timer never keeps the process alive (a2a-core's `startPeriodicJob`). Give it a pool (not a
 * single connection in a transaction): each fold is its own statement.
 */
export function startRollupCompaction(db: MetricsQueryable, options: RollupCompactionOptions = {}): RollupCompaction {
  const { intervalMs = ROLLUP_COMPACTION_INTERVAL_MS, onError } = options;
  return startPeriodicJob(() => compactMetricsRollups(db), { intervalMs, onError });
}
