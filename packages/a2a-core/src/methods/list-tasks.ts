import type { TaskListCursor } from "../ports/task-list.js";
import type { TaskStore } from "../ports/task-store.js";
import type { TaskListResult } from "../protocol/dialect/dialect.js";
import { InvalidParamsError, UnsupportedOperationError } from "../protocol/errors.js";
import type { Task } from "../protocol/schemas/a2a.js";
import type { ListedTask } from "../protocol/schemas/list-tasks.js";
import { LIST_TASKS_PAGE_SIZE, ListTasksParams } from "../protocol/schemas/params.js";
import type { UnaryMethod } from "./method.js";

/** ListTasks (`tasks/list`): a page of the caller's workspace's tasks, newest first. */
export const listTasks: UnaryMethod<typeof ListTasksParams, TaskListResult> = {
  name: "ListTasks",
  streaming: false,
  params: ListTasksParams,
  run: (runtime, { params, caller }) => listTaskPage(runtime.stores.tasks, caller.workspaceId, params),
  render: (dialect, result) => dialect.list(result),
};

/** ListTasks over a workspace: filters, a keyset page, history and artifacts trimmed. */
async function listTaskPage(tasks: TaskStore, workspaceId: string, params: ListTasksParams): Promise<TaskListResult> {
  if (!tasks.list) throw UnsupportedOperationError.forMethod("ListTasks");
  const pageSize = params.pageSize ?? LIST_TASKS_PAGE_SIZE.default;
  const after = params.pageToken === undefined ? undefined : decodePageToken(params.pageToken);
  const page = await tasks.list(workspaceId, {
    pageSize,
    ...(params.contextId === undefined ? {} : { contextId: params.contextId }),
    ...(params.status === undefined ? {} : { state: params.status }),
    ...(params.statusTimestampAfter === undefined
      ? {}
      : { statusTimestampAfter: new Date(params.statusTimestampAfter).toISOString() }),
    ...(after ? { after } : {}),
  });
  const listed = page.tasks.map((task) => view(task, params));
  return {
    tasks: listed,
    nextPageToken: page.next ? encodePageToken(page.next) : "",
    pageSize: listed.length,
    totalSize: page.totalSize,
  };
}

function view(task: Task, params: ListTasksParams): ListedTask {
  const { artifacts, ...rest } = task;
  const history =
    params.historyLength === undefined
      ? task.history
      : params.historyLength === 0
        ? []
        : task.history.slice(-params.historyLength);
  return { ...rest, history, ...(params.includeArtifacts ? { artifacts } : {}) };
}

const TOKEN_VERSION = 1;

/** Opaque to clients: base64url of the position the next page starts after. */
export function encodePageToken(cursor: TaskListCursor): string {
  return toBase64Url(JSON.stringify([TOKEN_VERSION, cursor.statusTimestamp, cursor.taskId]));
}

export function decodePageToken(token: string): TaskListCursor {
  const refuse = () => InvalidParamsError.forField("params.pageToken", "is not a page token of this server");
  if (!/^[A-Za-z0-9_-]+$/.test(token)) throw refuse();
  let decoded: unknown;
  try {
    decoded = JSON.parse(fromBase64Url(token));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(decoded) || decoded.length !== 3 || decoded[0] !== TOKEN_VERSION) throw refuse();
  const [, statusTimestamp, taskId] = decoded as [unknown, unknown, unknown];
  if (typeof statusTimestamp !== "string" || typeof taskId !== "string" || taskId.length === 0 || taskId.length > 256) {
    throw refuse();
  }
  // Kept as written (a store may give microseconds); only checked to be an ISO-8601 UTC instant.
  if (
    !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/.test(statusTimestamp) ||
    Number.isNaN(Date.parse(statusTimestamp))
  ) {
    throw refuse();
  }
  return { statusTimestamp, taskId };
}

// btoa/atob rather than Buffer: the core also runs on runtimes without Node's globals.
function toBase64Url(text: string): string {
  const binary = String.fromCharCode(...new TextEncoder().encode(text));
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(token: string): string {
  const binary = atob(token.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}
