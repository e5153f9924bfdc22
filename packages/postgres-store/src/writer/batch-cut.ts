import type { BatchEntry } from "./batch-statement.js";

/**
 * The channel payload lists "<taskId> <seq>" pairs separated by commas; PostgreSQL caps a payload at
 * 8000 bytes, so a batch moves at most this many tasks (about 41 bytes each).
 */
const MAX_TASKS_PER_BATCH = 150;
/** Rows of all kinds in one commit, so one batch never becomes one huge statement. */
const MAX_ROWS_PER_BATCH = 5_000;

/**
 * Splits the queue into the next commit's items (`batch`, in order: at most one event per task, a later
 * one waits for the next) and the items that wait (`rest`). The caller hands in both arrays.
 */
export function cutBatch<T extends BatchEntry>(queue: readonly T[], batch: T[], rest: T[]): void {
  const tasks = new Set<string>();
  const started = new Set<string>();
  let rows = 0;
  let full = false;
  for (const item of queue) {
    if (item.kind === "start") {
      // Nothing asked for earlier waits on a start, so a start never waits behind a backlog: it joins the
      // next commit, unless a start of the same task id is already in it (each is answered by that id's row).
      const id = item.start.input.task.id.toLowerCase();
      if (started.has(id) || started.size >= MAX_TASKS_PER_BATCH) rest.push(item);
      else {
        started.add(id);
        batch.push(item);
      }
      continue;
    }
    const size = item.kind === "append" ? item.append.events.length : item.rows.length;
    // Once one item does not fit, neither does anything after it: rows commit in the order asked for.
    full ||= batch.length > 0 && (rows + size > MAX_ROWS_PER_BATCH || tasks.size >= MAX_TASKS_PER_BATCH);
    if (full || (item.kind === "append" && tasks.has(item.append.taskId.toLowerCase()))) {
      rest.push(item);
      continue;
    }
    if (item.kind === "append") tasks.add(item.append.taskId.toLowerCase());
    rows += size;
    batch.push(item);
  }
}
