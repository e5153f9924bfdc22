import type { Task, TaskListPage, TaskListQuery } from "@a2a-partner/a2a-core";
import type { Database } from "./database.js";
import { isUuid } from "./is-uuid.js";

/**
 * ListTasks in SQL: one keyset page over `tasks_list_idx` (workspace, status_at, id), newest status
 * first, plus the count of everything that matches. The page reads at most pageSize + 1 index entries
 * past the cursor, however deep the cursor is; the count is proportional to the workspace's matching
 * tasks (an index-only scan of the same index when only the workspace filters).
 */
export async function listTasksPage(db: Database, workspaceId: string, query: TaskListQuery): Promise<TaskListPage> {
  if (!isUuid(workspaceId)) return { tasks: [], totalSize: 0 };
  const filters: string[] = ["workspace_id = $1"];
  const values: unknown[] = [workspaceId];
  const add = (sql: (placeholder: string) => string, value: unknown) => {
    values.push(value);
    filters.push(sql(`$${values.length}`));
  };
  if (query.contextId !== undefined) add((p) => `context_id = ${p}`, query.contextId);
  if (query.state !== undefined) add((p) => `state = ${p}`, query.state);
  if (query.statusTimestampAfter !== undefined)
    add((p) => `status_at >= ${p}::timestamptz`, query.statusTimestampAfter);
  const where = filters.join(" and ");
  const countValues = [...values];

  // A cursor with an id that is not a uuid cannot match a row; ids compare as uuids, like the index.
  if (query.after) {
    if (!isUuid(query.after.taskId)) return { tasks: [], totalSize: await count(db, where, countValues) };
    values.push(query.after.statusTimestamp, query.after.taskId);
    filters.push(`(status_at, id) < ($${values.length - 1}::timestamptz, $${values.length}::uuid)`);
  }
  values.push(query.pageSize + 1);
  const [{ rows }, totalSize] = await Promise.all([
    // The cursor keeps status_at to the microsecond (a Date would round it to the millisecond).
    db.query<{ snapshot: Task; status_at: string }>(
      `select snapshot, to_char(status_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as status_at
         from tasks where ${filters.join(" and ")}
        order by status_at desc, id desc
        limit $${values.length}`,
      values,
    ),
    count(db, where, countValues),
  ]);
  const page = rows.slice(0, query.pageSize);
  const last = page.at(-1);
  return {
    tasks: page.map((row) => row.snapshot),
    totalSize,
    ...(rows.length > query.pageSize && last
      ? { next: { statusTimestamp: last.status_at, taskId: last.snapshot.id } }
      : {}),
  };
}

async function count(db: Database, where: string, values: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from tasks where ${where}`, values);
  return rows[0]?.n ?? 0;
}
