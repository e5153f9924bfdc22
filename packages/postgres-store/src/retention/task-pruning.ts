import { type PeriodicJob, startPeriodicJob } from "@a2a-partner/a2a-core";
import type { Queryable } from "../database.js";
import { type PruneEndedTasksResult, pruneEndedTasks } from "./prune-ended-tasks.js";

/** How often `startTaskPruning` prunes by default (and once shortly after it starts). */
export const TASK_PRUNING_INTERVAL_MS = 10 * 60 * 1000;
const FIRST_RUN_MS = 30 * 1000;

/** Options of `startTaskPruning`. */
export interface TaskPruningOptions {
  /** Tasks that ended longer ago than this (ms) are deleted, with their events. */
  retentionMs: number;
  /** Time between runs. Default `TASK_PRUNING_INTERVAL_MS` (10 min); the first run comes after 30 s at most. */
  intervalMs?: number;
  /** A run deleted something (a line for the log). */
  onPruned?: (result: PruneEndedTasksResult) => void;
  /** A run failed (the database away, say); the next interval tries again. Log it here. */
  onError?: (error: unknown) => void;
}

/**
 * A retention policy on a timer: `pruneEndedTasks` of what ended more than `retentionMs` ago, in its
 * short batches, every `intervalMs`. Every instance may run one: their batches lock different rows
 * (`skip locked`), so together they prune once. `stop()` ends a run under way after its current batch;
 * the timer never keeps the process alive (a2a-core's `startPeriodicJob`).
 */
export function startTaskPruning(db: Queryable, options: TaskPruningOptions): PeriodicJob {
  const { retentionMs, intervalMs = TASK_PRUNING_INTERVAL_MS, onPruned, onError } = options;
  return startPeriodicJob(
    async (signal) => {
      const result = await pruneEndedTasks(db, { endedBefore: new Date(Date.now() - retentionMs), signal });
      if (result.tasks > 0) onPruned?.(result);
    },
    { intervalMs, firstRunAfterMs: Math.min(FIRST_RUN_MS, intervalMs), onError },
  );
}
