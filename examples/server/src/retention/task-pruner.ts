import type { PeriodicJob } from "@a2a-partner/a2a-core";
import { type Database, startTaskPruning, TASK_PRUNING_INTERVAL_MS } from "@a2a-partner/postgres-store";
import type { Logger } from "pino";

/**
 * `TASK_RETENTION`: postgres-store's `startTaskPruning` on every instance (together they prune once),
 * with what it deleted and a failed run in the log.
 */
export function startTaskPruner(
  db: Database,
  retentionMs: number,
  logger: Logger,
  intervalMs = TASK_PRUNING_INTERVAL_MS,
): PeriodicJob {
  return startTaskPruning(db, {
    retentionMs,
    intervalMs,
    onPruned: (result) => logger.info({ ...result }, "pruned ended tasks"),
    onError: (error) => logger.warn({ err: error }, "pruning ended tasks failed; trying again later"),
  });
}
