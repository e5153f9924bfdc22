import { type Database, pruneEndedTasks } from "@a2a-partner/postgres-store";
import type { Logger } from "../logger.ts";

/** How often an instance prunes when `TASK_RETENTION` is set (and once shortly after it starts). */
export const PRUNE_INTERVAL_MS = 10 * 60 * 1000;
const FIRST_RUN_MS = 30 * 1000;

export interface TaskPruner {
  /** Stops the schedule; a run under way stops after its current batch. */
  stop(): Promise<void>;
}

/**
 * `TASK_RETENTION`: deletes the tasks that ended more than `retentionMs` ago, with their events, every
 * `PRUNE_INTERVAL_MS`, in `pruneEndedTasks`' short batches. Every instance runs one: their batches lock
 * different rows (`skip locked`), so together they prune once. A failed run (the database away) is logged
 * and tried again at the next interval.
 */
export function startTaskPruner(
  db: Database,
  retentionMs: number,
  logger: Logger,
  intervalMs = PRUNE_INTERVAL_MS,
): TaskPruner {
  const abort = new AbortController();
  let running: Promise<void> | undefined;
  const run = () => {
    if (running) return; // a run longer than the interval: the next one waits for the tick after it ends
    running = pruneEndedTasks(db, { endedBefore: new Date(Date.now() - retentionMs), signal: abort.signal })
      .then(
        (result) => {
          if (result.tasks > 0) logger.info({ ...result }, "pruned ended tasks");
        },
        (error: unknown) => logger.warn({ err: error }, "pruning ended tasks failed; trying again later"),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const first = setTimeout(run, Math.min(FIRST_RUN_MS, intervalMs));
  const timer = setInterval(run, intervalMs);
  first.unref();
  timer.unref();
  return {
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      abort.abort();
      await running;
    },
  };
}
