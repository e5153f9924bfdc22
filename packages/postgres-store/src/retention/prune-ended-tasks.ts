import type { Queryable } from "../database.js";
import { sqlTimestamp } from "../tasks/rows.js";

/** Options of `pruneEndedTasks`. */
export interface PruneEndedTasksOptions {
  /** Tasks that ended (their final status timestamp) before this instant are deleted, with their events. */
  endedBefore: Date | string;
  /** Tasks deleted per statement (each its own short transaction). Default 200, at most 10,000. */
  batchSize?: number;
  /** Count what would be deleted, delete nothing. */
  dryRun?: boolean;
  /** Stops between batches (the batch under way completes). */
  signal?: AbortSignal;
}

/** What a prune deleted (or, with `dryRun`, would delete). */
export interface PruneEndedTasksResult {
  /** The cutoff as applied, ISO-8601. */
  endedBefore: string;
  /** Tasks deleted (with `dryRun`: that would be). */
  tasks: number;
  /** Their events, deleted with them. */
  events: number;
  /** Statements that deleted something (0 for a dry run). */
  batches: number;
  /** Whether this was a count only. */
  dryRun: boolean;
}

const DEFAULT_BATCH_SIZE = 200;
const MAX_BATCH_SIZE = 10_000;

/**
 * A task whose events are still on their way to a receiver (a push delivery not given up: migration 0008)
 * is kept until they arrive or are given up, however long ago it ended; deleting it would drop them. A
 * probe of `push_deliveries`' primary key per candidate. Given-up deliveries go with their task.
 */
const NO_PENDING_DELIVERY =
  "not exists (select 1 from push_deliveries d where d.task_id = tasks.id and d.given_up_at is null)";

/**
 * One batch: the oldest ended tasks before the cutoff (by `tasks_ended_at_idx`, migration 0007), locked
 * `skip locked` so instances pruning at once take different rows and nothing waits on a task another
 * transaction holds; their events, then the task rows (the idempotency key is a column of the row; push
 * configs and their given-up deliveries go by the foreign keys' cascade). Only
 * ended tasks qualify, and an ended task is never written again, so nothing running is ever touched.
 */
const PRUNE_BATCH = `
with doomed as (
  select id from tasks
   where terminal and final_status_at < $1::timestamptz and ${NO_PENDING_DELIVERY}
   order by final_status_at
   limit $2
   for update skip locked
), events as (
  delete from task_events e using doomed d where e.task_id = d.id returning 1
), gone as (
  delete from tasks t using doomed d where t.id = d.id returning 1
)
select (select count(*) from gone)::int as tasks, (select count(*) from events)::int as events`;

/** A task's events are numbered 1..last_seq without gaps, so their count is its `last_seq`. */
const COUNT_PRUNABLE = `
select count(*)::int as tasks, coalesce(sum(last_seq), 0)::bigint::text as events
  from tasks where terminal and final_status_at < $1::timestamptz and ${NO_PENDING_DELIVERY}`;

/**
 * Deletes the tasks that ended before `endedBefore`, with their events and idempotency keys, a batch at
 * a time until none is left (or `signal` aborts). Each batch is one statement in its own transaction, so
 * no lock is held longer than one batch takes. Safe to run on several instances at once. A task that is
 * gone answers as one that never existed (`TaskStore.get` → undefined; on the wire, -32001). A task with
 * a push delivery still pending is kept (and not counted) until it is delivered or given up.
 */
export async function pruneEndedTasks(db: Queryable, options: PruneEndedTasksOptions): Promise<PruneEndedTasksResult> {
  const endedBefore = sqlTimestamp(
    options.endedBefore instanceof Date ? options.endedBefore.toISOString() : options.endedBefore,
    "endedBefore",
  );
  const batchSize = batchSizeOf(options.batchSize);
  if (options.dryRun) {
    const { rows } = await db.query<{ tasks: number; events: string }>(COUNT_PRUNABLE, [endedBefore]);
    const row = rows[0];
    return { endedBefore, tasks: row?.tasks ?? 0, events: Number(row?.events ?? 0), batches: 0, dryRun: true };
  }
  const result: PruneEndedTasksResult = { endedBefore, tasks: 0, events: 0, batches: 0, dryRun: false };
  while (!options.signal?.aborted) {
    const { rows } = await db.query<{ tasks: number; events: number }>(PRUNE_BATCH, [endedBefore, batchSize], {
      name: "a2a_prune_ended_tasks",
    });
    const deleted = rows[0]?.tasks ?? 0;
    if (deleted === 0) break;
    result.tasks += deleted;
    result.events += rows[0]?.events ?? 0;
    result.batches++;
    // A short batch: the rest is locked by others (or gone); they finish it.
    if (deleted < batchSize) break;
  }
  return result;
}

function batchSizeOf(value: number | undefined): number {
  if (value === undefined) return DEFAULT_BATCH_SIZE;
  if (!Number.isInteger(value) || value < 1 || value > MAX_BATCH_SIZE) {
    throw new TypeError(`batchSize must be an integer from 1 to ${MAX_BATCH_SIZE}`);
  }
  return value;
}
