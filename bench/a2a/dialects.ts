/**
 * What differs on the wire between the two servers under test, in one place: our server speaks the
 * contract (A2A v0.3 shapes, PascalCase v1.0 method names, named SSE events, a partner token); the
 * official SDK v1.x speaks A2A v1.0 (protobuf JSON: `ROLE_USER`, `TASK_STATE_*`, `{ task }` /
 * `{ statusUpdate }` stream results, `A2A-Version: 1.0`) and needs no credential in its samples.
 */
import type { SseFrame } from "./sse-frames.ts";

export interface Dialect {
  headers: Record<string, string>;
  /** A new task ("Restock aisle 5", 5 robot steps) with a fresh messageId, as a JSON-RPC body. */
  start(messageId: string): string;
  getTask(taskId: string): string;
  subscribe(taskId: string): string;
  /** The task id in a stream's first frame (the Task object), or undefined if it is not one. */
  taskIdOf(first: SseFrame): string | undefined;
  /** The terminal state a frame announces (`completed`, `failed` …), if it ends the task. */
  terminalStateOf(frame: SseFrame): string | undefined;
  /** Whether a GetTask response body is a task (not a JSON-RPC error). */
  isTask(body: string): boolean;
  /**
   * The HTTP+JSON binding: the request of a start or a GetTask under the endpoint's path (`base`), instead
   * of a JSON-RPC POST to it. Only the load phases (first event, tasks/s, GetTask) use it.
   */
  rest?: { start(base: string, messageId: string): RestCall; getTask(base: string, id: string): RestCall };
}

/** One HTTP+JSON request. */
export interface RestCall {
  method: "GET" | "POST";
  path: string;
  body?: string;
}

const TEXT = "Restock aisle 5";
let requestSeq = 0;

function envelope(method: string, params: unknown): string {
  return JSON.stringify({ jsonrpc: "2.0", id: `b${++requestSeq}`, method, params });
}

function result(frame: SseFrame): Record<string, unknown> | undefined {
  try {
    const parsed = JSON.parse(frame.data) as { result?: Record<string, unknown> };
    return parsed.result;
  } catch {
    return undefined;
  }
}

/** Cheap on purpose (no JSON.parse per response): the first response of a run is checked in full. */
function isTask(body: string): boolean {
  return body.includes('"result":{') && !body.includes('"error":{');
}

export function oursDialect(partnerToken: string, storeId: string): Dialect {
  return {
    headers: { "content-type": "application/json", authorization: `Bearer ${partnerToken}` },
    start: (messageId) =>
      envelope("SendStreamingMessage", {
        message: { kind: "message", role: "user", messageId, parts: [{ kind: "text", text: TEXT }] },
        metadata: { storeId },
      }),
    getTask: (id) => envelope("GetTask", { id }),
    subscribe: (id) => envelope("SubscribeToTask", { id }),
    taskIdOf(first) {
      if (first.event !== "task") return undefined;
      const task = result(first);
      return typeof task?.id === "string" ? task.id : undefined;
    },
    terminalStateOf(frame) {
      if (frame.event !== "finished") return undefined;
      const status = result(frame)?.status as { state?: unknown } | undefined;
      return typeof status?.state === "string" ? status.state : "unknown";
    },
    isTask,
  };
}

const SDK_TERMINAL = /"state":"TASK_STATE_(COMPLETED|FAILED|CANCELED|REJECTED)"/;

export function sdkDialect(storeId: string): Dialect {
  return {
    headers: { "content-type": "application/json", "a2a-version": "1.0" },
    start: (messageId) =>
      envelope("SendStreamingMessage", {
        message: { messageId, role: "ROLE_USER", parts: [{ text: TEXT }] },
        metadata: { storeId },
      }),
    getTask: (id) => envelope("GetTask", { id }),
    subscribe: (id) => envelope("SubscribeToTask", { id }),
    taskIdOf(first) {
      const task = result(first)?.task as { id?: unknown } | undefined;
      return typeof task?.id === "string" ? task.id : undefined;
    },
    terminalStateOf(frame) {
      // v1.0 status updates carry no `final` flag: the terminal state is what ends the task.
      if (!frame.data.includes('"statusUpdate"')) return undefined;
      const match = SDK_TERMINAL.exec(frame.data);
      return match ? (match[1] as string).toLowerCase() : undefined;
    },
    isTask,
  };
}

/**
 * Our server over its HTTP+JSON binding (the same process as `ours`): v1.0 bodies on the binding's routes,
 * stream frames carrying the `StreamResponse` bare, GetTask a GET answered with the Task itself.
 */
export function oursRestDialect(partnerToken: string, storeId: string): Dialect {
  const headers = { "content-type": "application/json", authorization: `Bearer ${partnerToken}` };
  const bare = (frame: SseFrame): Record<string, unknown> | undefined => {
    try {
      return JSON.parse(frame.data) as Record<string, unknown>;
    } catch {
      return undefined;
    }
  };
  const startBody = (messageId: string) =>
    JSON.stringify({ message: { messageId, role: "ROLE_USER", parts: [{ text: TEXT }] }, metadata: { storeId } });
  return {
    ...oursDialect(partnerToken, storeId),
    headers,
    taskIdOf(first) {
      const task = bare(first)?.task as { id?: unknown } | undefined;
      return typeof task?.id === "string" ? task.id : undefined;
    },
    terminalStateOf(frame) {
      if (frame.event !== "finished") return undefined;
      const match = SDK_TERMINAL.exec(frame.data);
      return match ? (match[1] as string).toLowerCase() : "unknown";
    },
    isTask: (body) => body.startsWith('{"id":') && !body.includes('"error":{'),
    rest: {
      start: (base, messageId) => ({ method: "POST", path: `${base}/message:stream`, body: startBody(messageId) }),
      getTask: (base, id) => ({ method: "GET", path: `${base}/tasks/${encodeURIComponent(id)}` }),
    },
  };
}
