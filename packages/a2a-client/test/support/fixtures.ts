// Test-only helpers (not exported from the package): wire frames and scripted SSE responses.
import {
  fromV03Event,
  fromV03Message,
  fromV03Task,
  toV1StreamResult as modelStreamResultToV1,
  toV1Task as modelTaskToV1,
} from "@a2a-partner/a2a-core/protocol";
import type { Message, Task, TaskStatusUpdateEvent, TaskUpdateResult, TerminalTaskState } from "../../src/model.js";

/** A message (the client's v0.3 shape) as the server's v1.0 dialect writes it. */
export function toV1Message(message: Message) {
  return fromV03Message(message);
}

/** A stream frame's result (the client's v0.3 shapes) as the server's v1.0 dialect writes it. */
export function toV1StreamResult(result: Task | TaskUpdateResult) {
  return modelStreamResultToV1(fromV03Event(result));
}

/** A task (the client's v0.3 shape) as the server's v1.0 dialect writes it, artifacts left out if asked. */
export function toV1Task(task: Task, view: { omitArtifacts?: boolean } = {}) {
  const { artifacts, ...rest } = fromV03Task(task);
  return modelTaskToV1(view.omitArtifacts ? rest : { ...rest, artifacts });
}

export const BASE_URL = "http://a2a.test";
export const ENDPOINT = `${BASE_URL}/api/v1/a2a`;

/** An agent card (A2A 0.3 fields) whose endpoint is `url`, also declared as a JSON-RPC interface. */
export function agentCard(url: string, interfaceVersion = "0.3") {
  return {
    protocolVersion: "0.3.0",
    name: "Robots",
    description: "d",
    url,
    preferredTransport: "JSONRPC",
    version: "1.0.0",
    capabilities: { streaming: true },
    securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    security: [{ bearer: [] }],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    supportedInterfaces: [{ url, protocolBinding: "JSONRPC", protocolVersion: interfaceVersion }],
  };
}

export function task(id = "task-1", state: Task["status"]["state"] = "working", messageId = "m-1"): Task {
  return {
    kind: "task",
    id,
    contextId: "ctx-1",
    status: { state, timestamp: "2025-01-01T00:00:00.000Z" },
    history: [{ kind: "message", role: "user", messageId, parts: [{ kind: "text", text: "Restock aisle 5" }] }],
    artifacts: [],
    metadata: { storeId: "store-001", messageId },
  };
}

export function progress(taskId: string, step: number, steps = 3): TaskStatusUpdateEvent {
  return {
    kind: "status-update",
    taskId,
    contextId: "ctx-1",
    status: {
      state: "working",
      timestamp: "2025-01-01T00:00:01.000Z",
      message: { kind: "message", role: "agent", parts: [{ kind: "text", text: `robot-${step}: step ${step}` }] },
    },
    final: false,
    metadata: { robot: `robot-${step}`, step, steps, percent: Math.round((step / steps) * 100) },
  };
}

export function finished(taskId: string, state: TerminalTaskState = "completed"): TaskStatusUpdateEvent {
  return {
    kind: "status-update",
    taskId,
    contextId: "ctx-1",
    status: {
      state,
      timestamp: "2025-01-01T00:00:09.000Z",
      message: { kind: "message", role: "agent", parts: [{ kind: "text", text: `Done (${state})` }] },
    },
    final: true,
  };
}

/** One SSE frame as the server encodes it: id, event, one line of JSON-RPC response. */
export function frame(
  id: number | undefined,
  event: string,
  result: unknown,
  rpcId: string | number = "rpc-1",
): string {
  const head = id === undefined ? "" : `id: ${id}\n`;
  return `${head}event: ${event}\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: rpcId, result })}\n\n`;
}

export function errorFrame(id: number, event: string, code: number, message: string): string {
  return `id: ${id}\nevent: ${event}\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: "rpc-1", error: { code, message } })}\n\n`;
}

/**
 * The frames of a whole task: task (1), `updates` progress events (2…), finished, then the transport
 * `final` trailer with the same id as finished (as the reference server sends it).
 */
export function taskFrames(taskId = "task-1", updates = 3, state: TerminalTaskState = "completed"): string[] {
  const frames = [frame(1, "task", task(taskId))];
  for (let step = 1; step <= updates; step++) frames.push(frame(step + 1, "update", progress(taskId, step, updates)));
  const last = updates + 2;
  frames.push(frame(last, "finished", finished(taskId, state)));
  frames.push(frame(last, "final", task(taskId, state)));
  return frames;
}

export type StreamEnd = "close" | "error" | "hang";

/**
 * An SSE response that sends `chunks` (strings or raw bytes) and then closes cleanly, errors like a
 * reset connection, or hangs (never sends again, never closes). The default is to hang: the client
 * leaves by itself after `finished`.
 */
export function sseResponse(chunks: Array<string | Uint8Array>, end: StreamEnd = "hang"): Response {
  const encoder = new TextEncoder();
  const queue = chunks.map((chunk) => (typeof chunk === "string" ? encoder.encode(chunk) : chunk));
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = queue.shift();
      if (next) {
        // A macrotask between chunks, as on a socket, so each chunk is a separate read.
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (!cancelled) controller.enqueue(next);
        return;
      }
      if (end === "close") controller.close();
      else if (end === "error") controller.error(new TypeError("terminated: other side closed"));
      // "hang": leave the read pending.
    },
    cancel() {
      cancelled = true;
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

export function jsonRpcErrorResponse(
  code: number,
  message: string,
  status = 200,
  data?: unknown,
  headers: Record<string, string> = {},
): Response {
  const error = data === undefined ? { code, message } : { code, message, data };
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: null, error }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

export function jsonRpcResultResponse(result: unknown): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id: "rpc-1", result }), {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

/** Splits a string into chunks of `size` bytes, cutting through lines and multi-byte characters alike. */
export function splitBytes(text: string, size: number): Uint8Array[] {
  const bytes = new TextEncoder().encode(text);
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.slice(i, i + size));
  return out;
}

/** A sleep that records the delays asked for and returns at once. */
export function recordingSleep(): { sleep: (ms: number) => Promise<void>; delays: number[] } {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms: number) => {
      delays.push(ms);
    },
  };
}

/** A JSON-RPC request as the mocked server saw it. */
export interface SeenRequest {
  method: string;
  params: Record<string, unknown>;
  id: unknown;
  headers: Headers;
}

/**
 * A fetch that answers in process, without sockets: for streams the client leaves while they are silent.
 * (msw's socket mock answers a cancelled, silent body with an end-of-message that undici asserts against.)
 */
export function fakeFetch(respond: (n: number, request: SeenRequest) => Response | Promise<Response>): {
  fetch: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
  seen: SeenRequest[];
} {
  const seen: SeenRequest[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.signal.aborted) throw new DOMException("This operation was aborted", "AbortError");
    const parsed = await readRequest(request);
    seen.push(parsed);
    return respond(seen.length - 1, parsed);
  };
  return { fetch, seen };
}

export async function readRequest(request: Request): Promise<SeenRequest> {
  const body = (await request.json()) as { method: string; params: Record<string, unknown>; id: unknown };
  return { method: body.method, params: body.params, id: body.id, headers: request.headers };
}
