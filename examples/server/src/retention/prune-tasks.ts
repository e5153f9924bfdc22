import { pastInstantOption, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import { type Database, type PruneEndedTasksResult, pruneEndedTasks } from "@a2a-partner/postgres-store";
import { record } from "../admin/request-fields.ts";
import { MIN_RETENTION_MS } from "./min-retention.ts";

/**
 * `--ended-before`: a duration back from `now` (`30d`, `12h`, as `--expires-in` takes them) or an
 * ISO-8601 instant, at least `MIN_RETENTION_MS` in the past.
 */
export function pruneCutoff(text: string, now: number): Date {
  const at = pastInstantOption(text, "--ended-before", now);
  if (at > now - MIN_RETENTION_MS) {
    throw new UsageError(
      `--ended-before must be at least 1h ago: a stream or a reattaching client may still be reading a task that ended since; got "${text}"`,
    );
  }
  return new Date(at);
}

/** The `prune` operation, from the CLI or the control socket: `{ endedBefore, dryRun?, batchSize? }`. */
export async function pruneTasks(db: Database, input: unknown, now = Date.now()): Promise<PruneEndedTasksResult> {
  const request = record(input);
  if (typeof request.endedBefore !== "string") throw new UsageError("prune needs --ended-before");
  const endedBefore = pruneCutoff(request.endedBefore, now);
  const batchSize = request.batchSize === undefined ? undefined : Number(request.batchSize);
  if (batchSize !== undefined && !(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 10_000)) {
    throw new UsageError(`--batch-size must be an integer from 1 to 10000; got "${String(request.batchSize)}"`);
  }
  return pruneEndedTasks(db, { endedBefore, dryRun: request.dryRun === true, batchSize });
}
