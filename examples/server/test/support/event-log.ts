/** Anything that runs a query: a store's Database, a test's pg Pool. */
interface Queries {
  query(sql: string, params: unknown[]): Promise<{ rows: Array<{ seq: unknown }> }>;
}

/**
 * A task's events as the log holds them: their sequence numbers, in order. What every stream of the task
 * must deliver exactly once, however often it was resumed and wherever.
 */
export async function loggedSeqs(db: Queries, taskId: string): Promise<number[]> {
  const { rows } = await db.query("select seq from task_events where task_id = $1 order by seq", [taskId]);
  return rows.map((row) => Number(row.seq));
}
