import { type PeriodicJob, startPeriodicJob } from "@a2a-partner/a2a-core";
import { type Database, pruneEndedTasks } from "@a2a-partner/postgres-store";
import type { Logger } from "../logger.ts";

/** How often an instance prunes when `TASK_RETENTION` is set (and once shortly after it starts). */
export const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
const FIRST_RUN_MS = 30 * 1000;

/**
 * `TASK_RETENTION`: deletes the tasks that ended more than `retentionMs` ago, with their events, every
 * `PRUNE_INTERVAL_MS`, in `pruneEndedTasks`' short batches. Every instance runs one: their batches lock
 * different rows (`skip locked`), so together they prune once. A failed run (the database away) is logged
 * and tried again at the next interval; `stop` ends a run under way after its current batch.
 */
export function startTaskPruner(
  db: Database,
  retentionMs: number,
  logger: Logger,
  intervalMs = PRUNE_INTERVAL_MS,
): PeriodicJob {
  return startPeriodicJob(
    async (signal) => {
      const result = await pruneEndedTasks(db, { endedBefore: new Date(Date.now() - retentionMs), signal });
      if (result.tasks > 0) logger.info({ ...result }, "pruned ended tasks");
    },
    {
      intervalMs,
      firstRunAfterMs: Math.min(FIRST_RUN_MS, intervalMs),
      onError: (error) => logger.warn({ err: error }, "pruning ended tasks failed; trying again later"),
    },
  );
}
