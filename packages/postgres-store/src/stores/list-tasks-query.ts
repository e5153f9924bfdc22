import { A2A_LIMITS, isTerminalState, type TaskListPage, type TaskListQuery } from "@a2a-partner/a2a-core";
import type { MessageV03, TaskV03 } from "@a2a-partner/a2a-core/protocol";
import type { Queryable } from "../database.js";
import { isUuid } from "../is-uuid.js";
import { asRequestDataError } from "../tasks/data-error.js";
import { taskOfRow } from "../tasks/rows.js";
import { storedState } from "../tasks/stored-shapes.js";

/**
 * The two kinds of task rows ListTasks reads, each by an index of its own (migration 0003): ended tasks
 * by keyset over `tasks_ended_list_idx (workspace_id, final_status_at, id) where terminal` (an ended
 * task's status timestamp, set once), running tasks through `tasks_running_idx (workspace_id) where not
 * terminal`, sorted as they are read (a workspace has few at any time). No index holds a running task's
 * status timestamp, which changes with every status update: that keeps those updates heap-only.
 */
const PARTS = [
  { rows: "not terminal", statusAt: "status_at" },
  { rows: "terminal", statusAt: "final_status_at" },
] as const;

/**
 * ListTasks in SQL: one keyset page, newest status first, merged from the running and the ended tasks,
 * plus the count of what matches, up to A2A_LIMITS.listTotalSize. The ended part reads at most pageSize + 1
 * index entries past the cursor, however deep the cursor is; the count at most that cap per part.
 */
export async function listTasksPage(db: Queryable, workspaceId: string, query: TaskListQuery): Promise<TaskListPage> {
  // A value PostgreSQL cannot read (a page token's timestamp in year 0000, say) fails the same way on every
  // retry: it is the request's fault (-32602), not an outage.
  return readPage(db, workspaceId, query).catch((error: unknown) => {
    throw asRequestDataError(error);
  });
}

async function readPage(db: Queryable, workspaceId: string, query: TaskListQuery): Promise<TaskListPage> {
  if (!isUuid(workspaceId)) return { tasks: [], totalSize: 0 };
  const values: unknown[] = [workspaceId];
  const placeholder = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  // Each filter is written per part, with that part's column for the status timestamp.
  const filters: ((statusAt: string) => string)[] = [() => "workspace_id = $1"];
  if (query.contextId !== undefined) {
    const p = placeholder(query.contextId);
    filters.push(() => `context_id = ${p}`);
  }
  if (query.state !== undefined) {
    const p = placeholder(storedState(query.state));
    filters.push(() => `state = ${p}`);
  }
  if (query.statusTimestampAfter !== undefined) {
    const p = placeholder(query.statusTimestampAfter);
    filters.push((statusAt) => `${statusAt} >= ${p}::timestamptz`);
  }
  // A state filter names one kind of task: the other part cannot match and is not read.
  const state = query.state;
  const parts =
    state === undefined ? PARTS : PARTS.filter((part) => (part.rows === "terminal") === isTerminalState(state));
  const where = (part: (typeof PARTS)[number], extra: ((statusAt: string) => string)[] = []) =>
    [...filters, () => part.rows, ...extra].map((filter) => filter(part.statusAt)).join(" and ");
  // Each part counts up to the cap and no further (A2A_LIMITS.listTotalSize: "at least" past it).
  const countValues = [...values, A2A_LIMITS.listTotalSize];
  const cap = `$${countValues.length}::int`;
  const countSql = `least(${parts
    .map((part) => `(select count(*) from (select 1 from tasks where ${where(part)} limit ${cap}) as capped)`)
    .join(" + ")}, ${cap})`;

  // A cursor with an id that is not a uuid cannot match a row; ids compare as uuids, like the indexes.
  if (query.after && !isUuid(query.after.taskId)) {
    return { tasks: [], totalSize: await count(db, countSql, countValues) };
  }
  const cursor: ((statusAt: string) => string)[] = [];
  if (query.after) {
    const at = placeholder(query.after.statusTimestamp);
    const id = placeholder(query.after.taskId);
    cursor.push((statusAt) => `(${statusAt}, id) < (${at}::timestamptz, ${id}::uuid)`);
  }
  const limit = placeholder(query.pageSize + 1);
  const pageSql = parts
    .map(
      (part) =>
        `(select snapshot, first_message, ${part.statusAt} as status_at, id from tasks where ${where(part, cursor)}
           order by ${part.statusAt} desc, id desc limit ${limit})`,
    )
    .join(" union all ");
  const [{ rows }, totalSize] = await Promise.all([
    // The cursor keeps status_at to the microsecond (a Date would round it to the millisecond). The order
    // names `page.status_at`, the timestamp: an unqualified `status_at` would be the output column, text
    // (the query before migration 0003 sorted that way, and so could not read its index in order).
    db.query<{ snapshot: TaskV03; first_message: MessageV03 | null; status_at: string }>(
      `select snapshot, first_message, to_char(status_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as status_at
         from (${pageSql}) as page
        order by page.status_at desc, id desc
        limit ${limit}`,
      values,
    ),
    count(db, countSql, countValues),
  ]);
  const page = rows.slice(0, query.pageSize);
  const last = page.at(-1);
  return {
    tasks: page.map((row) => taskOfRow(row.snapshot, row.first_message)),
    totalSize,
    ...(rows.length > query.pageSize && last
      ? { next: { statusTimestamp: last.status_at, taskId: last.snapshot.id } }
      : {}),
  };
}

async function count(db: Queryable, sql: string, values: unknown[]): Promise<number> {
  const { rows } = await db.query<{ n: number }>(`select (${sql})::int as n`, values);
  return rows[0]?.n ?? 0;
}
