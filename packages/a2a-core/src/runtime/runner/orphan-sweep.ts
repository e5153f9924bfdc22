import type { Logger } from "../../ports/logger.js";
import type { TaskRecord } from "../../ports/task-records.js";
import type { TaskStore } from "../../ports/task-store.js";

/** Orphans looked at per sweep. */
const ORPHANS_PER_SWEEP = 100;

export interface OrphanSweep {
  tasks: TaskStore;
  logger: Logger;
  /** Whether this process runs the task itself (then it is not an orphan, whatever its lease says). */
  isRunningHere(taskId: string): boolean;
  /** Ends an orphan `failed`; resolves falsy when it had already ended. */
  end(orphan: TaskRecord): Promise<unknown>;
}

/**
 * One pass over the orphaned tasks (live, lease expired: their runner is gone): each is ended `failed`.
 * Returns how many it ended.
 */
export async function sweepOrphans(sweep: OrphanSweep): Promise<number> {
  let orphans: TaskRecord[];
  try {
    orphans = await sweep.tasks.listOrphaned(ORPHANS_PER_SWEEP);
  } catch (error) {
    sweep.logger.error({ err: error }, "orphan recovery failed; will retry");
    return 0;
  }
  let ended = 0;
  for (const orphan of orphans) {
    if (sweep.isRunningHere(orphan.task.id)) continue;
    // Each orphan on its own: one that cannot be ended (a bad row, a failing write) is logged and
    // skipped, and the others are still ended by this sweep.
    try {
      if (await sweep.end(orphan)) {
        ended++;
        sweep.logger.warn({ taskId: orphan.task.id, leaseOwner: orphan.lease?.owner }, "ended orphaned task as failed");
      }
    } catch (error) {
      sweep.logger.error({ err: error, taskId: orphan.task.id }, "could not end an orphaned task; skipped");
    }
  }
  return ended;
}
