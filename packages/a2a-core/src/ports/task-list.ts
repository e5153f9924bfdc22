import { A2A_LIMITS } from "../protocol/limits.js";
import type { Task, TaskState } from "../protocol/schemas/a2a.js";

/**
 * Where a page of ListTasks continues: the task the previous page ended with, by its position in the
 * order (status timestamp descending, then id descending). A keyset, not an offset: reading page 1000
 * costs what reading page 1 does, and tasks created meanwhile (newer, so before the cursor) never shift it.
 */
export interface TaskListCursor {
  /** ISO-8601 UTC status timestamp (…Z) of the last task of the previous page. */
  statusTimestamp: string;
  taskId: string;
}

/** One page request against a workspace's tasks; every filter is optional. */
export interface TaskListQuery {
  contextId?: string;
  state?: TaskState;
  /** ISO-8601; only tasks whose status timestamp is at or after it. */
  statusTimestampAfter?: string;
  /** 1–100. */
  pageSize: number;
  after?: TaskListCursor;
}

export interface TaskListPage {
  /** Newest status first. Full snapshots: the caller trims history and artifacts. */
  tasks: Task[];
  /**
   * Tasks matching the filters, on every page (the cursor does not count), counted up to
   * `A2A_LIMITS.listTotalSize`: a store stops counting there, and that number means "at least".
   */
  totalSize: number;
  /** Where the next page starts; absent on the last page. */
  next?: TaskListCursor;
}

/** The order of ListTasks: newest status timestamp first, ties broken by task id (descending). */
export function compareForList(a: Task, b: Task): number {
  const byTime = Date.parse(b.status.timestamp) - Date.parse(a.status.timestamp);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** Whether `task` comes after the cursor in list order. */
export function isAfterCursor(task: Task, cursor: TaskListCursor): boolean {
  const at = Date.parse(task.status.timestamp);
  const cursorAt = Date.parse(cursor.statusTimestamp);
  return at < cursorAt || (at === cursorAt && task.id < cursor.taskId);
}

/** The cursor a page ending with `task` hands on. */
export function cursorAfter(task: Task): TaskListCursor {
  return { statusTimestamp: new Date(Date.parse(task.status.timestamp)).toISOString(), taskId: task.id };
}

/**
 * A page over tasks already in memory (the in-memory store; a reference for the others). `matching`
 * must all belong to the caller's workspace.
 */
export function pageOf(matching: readonly Task[], query: TaskListQuery): TaskListPage {
  const after = Date.parse(query.statusTimestampAfter ?? "");
  const filtered = matching.filter(
    (task) =>
      (query.contextId === undefined || task.contextId === query.contextId) &&
      (query.state === undefined || task.status.state === query.state) &&
      (Number.isNaN(after) || Date.parse(task.status.timestamp) >= after),
  );
  const ordered = filtered.sort(compareForList);
  const rest = query.after ? ordered.filter((task) => isAfterCursor(task, query.after as TaskListCursor)) : ordered;
  const tasks = rest.slice(0, query.pageSize);
  const last = tasks.at(-1);
  return {
    tasks,
    totalSize: Math.min(filtered.length, A2A_LIMITS.listTotalSize),
    ...(rest.length > query.pageSize && last ? { next: cursorAfter(last) } : {}),
  };
}
