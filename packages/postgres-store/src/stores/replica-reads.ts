import type { Queryable } from "../database.js";

/**
 * Whether `replica` has replayed all the WAL `primary` had inserted when this was called: then a
 * statement started on the replica afterwards sees every transaction the primary had committed by then,
 * the same answer the primary would give (never older than the request). The primary's side is one
 * function call, no table read. False when either cannot be asked (the replica down): read the primary.
 */
export async function replicaCaughtUp(primary: Queryable, replica: Queryable): Promise<boolean> {
  try {
    const { rows } = await primary.query<{ lsn: string }>("select pg_current_wal_insert_lsn()::text as lsn");
    const lsn = rows[0]?.lsn;
    if (lsn === undefined) return false;
    const caughtUp = await replica.query<{ ok: boolean | null }>(
      "select pg_last_wal_replay_lsn() >= $1::pg_lsn as ok",
      [lsn],
    );
    return caughtUp.rows[0]?.ok === true;
  } catch {
    return false;
  }
}

/** At most this many task ids are remembered as running (the oldest forgotten first). */
const RUNNING_IDS_KEPT = 10_000;

/**
 * Ids of tasks this process saw running on the primary (it started them, or a read found them not yet
 * ended). Their reads go straight to the primary: the replica could only answer them with a task that
 * has not caught up, and a read that must see its own write never waits on a replica.
 */
export class RunningTaskIds {
  private readonly ids = new Set<string>();

  has(taskId: string): boolean {
    return this.ids.has(taskId);
  }

  add(taskId: string): void {
    this.ids.delete(taskId);
    this.ids.add(taskId);
    if (this.ids.size > RUNNING_IDS_KEPT) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
  }

  delete(taskId: string): void {
    this.ids.delete(taskId);
  }
}
