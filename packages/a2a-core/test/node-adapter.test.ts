import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { firstResponseLine } from "@a2a-partner/test-support/first-response-line";
import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import fc from "fast-check";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { A2AHandlerOptions, Logger } from "../src/index.js";
import { type A2AHandler, createA2AHandler } from "../src/index.js";
import { type NodeHandlerOptions, toNodeHandler } from "../src/node.js";
import type { TaskExecutionContext, TaskOutcome } from "../src/ports/task-executor.js";
import { ERROR_CODES } from "../src/protocol/errors.js";
import { JsonRpcErrorResponse } from "../src/protocol/schemas/jsonrpc.js";
import { type DecodedSseEvent, decodeSseStream } from "../src/protocol/sse/decoder.js";
import { createInMemoryStores, type InMemoryStores } from "../src/stores/in-memory.js";
import { authenticateTestToken, ScriptedExecutor, startParams, waitFor } from "./support/handler-harness.js";

/**
 * The node:http adapter over a real socket: a plain `node:http` server on 127.0.0.1:0, the in-memory
 * stores, and the global fetch as the client. What the in-process tests (handler.test.ts) cannot see
 * lives here: flushing, disconnects, body limits on a socket, pre-parsed bodies, hostile bytes.
 */

interface Running {
  url: string;
  server: Server;
  handler: A2AHandler;
  stores: InMemoryStores;
  executor: ScriptedExecutor;
  errors: unknown[];
}

const running: Running[] = [];

afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.handler.close({ graceMs: 0 });
    r.server.closeAllConnections();
    await new Promise<void>((resolve) => r.server.close(() => resolve()));
  }
});

type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;
/** Builds the server's request listener around the node handler (e.g. a body parser in front of it). */
type Wrap = (node: (req: IncomingMessage, res: ServerResponse) => Promise<void>, handler: A2AHandler) => NodeListener;

/** Starts a real server; `wrap` lets a test put something (a body parser) in front of the node handler. */
async function serve(
  options: {
    executor?: ScriptedExecutor;
    handler?: Partial<A2AHandlerOptions>;
    node?: NodeHandlerOptions;
    wrap?: Wrap;
    detached?: boolean;
  } = {},
): Promise<Running> {
  const stores = createInMemoryStores();
  const executor = options.executor ?? new ScriptedExecutor();
  const errors: unknown[] = [];
  const logger: Logger = { info() {}, warn() {}, error: (obj) => errors.push(obj) };
  const handler = createA2AHandler({
    stores,
    executor,
    logger,
    authenticate: authenticateTestToken,
    leaseMs: 60_000,
    ...options.handler,
  });
  const node = toNodeHandler(handler, options.node);
  const server = createServer(options.wrap ? options.wrap(node, handler) : (req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const r: Running = { url: `http://127.0.0.1:${port}/api/v1/a2a`, server, handler, stores, executor, errors };
  // Detached servers outlive one test; their describe block closes them.
  if (!options.detached) running.push(r);
  return r;
}

/** A request body as bytes (what fetch accepts as a BufferSource). */
type Bytes = Uint8Array<ArrayBuffer>;

function post(
  r: Running,
  body: string | object | Bytes,
  init: { headers?: Record<string, string>; signal?: AbortSignal } = {},
) {
  return fetch(r.url, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer partner-a", ...init.headers },
    body: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
    ...(init.signal ? { signal: init.signal } : {}),
  });
}

async function getTask(r: Running, id: string) {
  const res = await post(r, { jsonrpc: "2.0", id: "get", method: "GetTask", params: { id } });
  return { status: res.status, body: (await res.json()) as LooseJson };
}

function startBody(text = "restock aisle 5", messageId?: string) {
  return { jsonrpc: "2.0", id: "start", method: "SendStreamingMessage", params: startParams(text, messageId) };
}

/** A response body read as raw text, as far as a test asks: the bytes on the wire, keep-alives included. */
function streamText(res: Response) {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const stream = {
    text: "",
    /** Reads until `done(text)` holds (false) or the body ends (true); gives up after 3 s (false). */
    async readUntil(done: (text: string) => boolean): Promise<boolean> {
      const deadline = Date.now() + 3000;
      while (!done(stream.text) && Date.now() < deadline) {
        const next = await reader.read();
        if (next.done) return true;
        stream.text += decoder.decode(next.value, { stream: true });
      }
      return false;
    },
    cancel: () => reader.cancel(),
  };
  return stream;
}

/** The next SSE event, or a clear failure if it does not arrive in time (instead of a test timeout). */
async function nextEvent(events: AsyncIterator<DecodedSseEvent>, what: string, ms = 3000): Promise<DecodedSseEvent> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not arrive within ${ms} ms (not flushed?)`)), ms);
  });
  try {
    const next = await Promise.race([events.next(), timeout]);
    if (next.done) throw new Error(`the stream ended before ${what}`);
    return next.value;
  } finally {
    clearTimeout(timer);
  }
}

async function allEvents(res: Response): Promise<Array<DecodedSseEvent & { json: LooseJson }>> {
  const out: Array<DecodedSseEvent & { json: LooseJson }> = [];
  if (!res.body) return out;
  for await (const event of decodeSseStream(res.body)) out.push({ ...event, json: JSON.parse(event.data) });
  return out;
}

/** Robots that report `count` bulky updates (4 KiB each), yielding to I/O between them like real work. */
class BulkyExecutor extends ScriptedExecutor {
  constructor(private readonly count: number) {
    super();
  }
  override async execute(context: TaskExecutionContext): Promise<TaskOutcome> {
    for (let i = 0; i < this.count; i++) {
      await new Promise((resolve) => setImmediate(resolve));
      await context.emit({ kind: "status", message: "x".repeat(4096) });
    }
    return { state: "TASK_STATE_COMPLETED" };
  }
}

/** Reads a body to its end; rejects if the connection breaks first. */
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  for (;;) if ((await reader.read()).done) return;
}

/** How many watchers the store holds on a task: a feed of this process is one. */
function watchersOf(stores: InMemoryStores, taskId: string): number {
  return stores.tasks.entries.get(taskId)?.watchers.size ?? 0;
}

function openConnections(server: Server): Promise<number> {
  return new Promise((resolve, reject) =>
    server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );
}

describe("toNodeHandler over a real socket: streaming", () => {
  it("sends each SSE frame as it is produced, with the streaming headers", async () => {
    const r = await serve({ executor: new ScriptedExecutor(undefined, undefined, true) });
    const res = await post(r, startBody("restock aisle 5", "m-flush"));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("cache-control")).toMatch(/(^|,\s*)no-cache(,|$)/);
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    expect(res.body).not.toBeNull();
    const events = decodeSseStream(res.body as ReadableStream<Uint8Array>)[Symbol.asyncIterator]();

    // The executor is parked at its first gate: nothing but the `task` event exists yet, and still the
    // client has it. A buffering adapter would hold it back until more arrived (or the response ended).
    const task = await nextEvent(events, "the task frame");
    expect(task).toMatchObject({ id: "1", event: "task" });
    const taskId = JSON.parse(task.data).result.id as string;
    expect(JSON.parse(task.data).result.status.state).toBe("working");
    expect(await r.stores.events.readAfter(taskId, 1)).toEqual([]);

    for (const seq of [2, 3]) {
      await r.executor.release();
      const update = await nextEvent(events, `update ${seq}`);
      expect(update).toMatchObject({ id: String(seq), event: "update" });
      // Still blocked at the next gate: this frame went out on its own.
      expect(await r.stores.events.readAfter(taskId, seq)).toEqual([]);
    }

    await r.executor.release();
    const finished = await nextEvent(events, "finished");
    expect(finished).toMatchObject({ id: "4", event: "finished" });
    expect(JSON.parse(finished.data).result).toMatchObject({ final: true, status: { state: "completed" } });
    const final = await nextEvent(events, "final");
    expect(final).toMatchObject({ id: "5", event: "final" });
    expect((await events.next()).done).toBe(true);
  });

  it("writes a keep-alive comment on an idle stream", async () => {
    const r = await serve({ executor: new ScriptedExecutor(undefined, undefined, true), handler: { keepAliveMs: 30 } });
    const stream = streamText(await post(r, startBody()));
    await stream.readUntil((text) => text.includes(": keep-alive\n\n"));
    expect(stream.text).toMatch(/^id: 1\nevent: task\n/);
    expect(stream.text).toContain(": keep-alive\n\n");
    await stream.cancel();
  });

  // Keep-alives and frames alternate on the wire: the frames must still arrive whole and in order, and
  // the response must end as valid HTTP (the connection serves the next request).
  it("interleaves keep-alives with the frames that follow them, and ends the response cleanly", async () => {
    const r = await serve({ executor: new ScriptedExecutor(undefined, undefined, true), handler: { keepAliveMs: 20 } });
    const stream = streamText(await post(r, startBody()));
    const keepAlives = () => stream.text.split(": keep-alive\n\n").length - 1;
    await stream.readUntil(() => keepAlives() >= 2);
    for (let step = 0; step < 3; step++) {
      const seen = keepAlives();
      await r.executor.release();
      // Another keep-alive after each step, so frames and keep-alives alternate on the wire.
      await stream.readUntil((text) => text.includes("event: final") || keepAlives() > seen);
    }
    expect(await stream.readUntil(() => false)).toBe(true);
    const frames = stream.text.split("\n\n").filter((block) => block !== "" && !block.startsWith(":"));
    expect(frames.map((block) => /^id: (\d+)/.exec(block)?.[1])).toEqual(["1", "2", "3", "4", "5"]);
    expect(frames.at(-1)).toMatch(/event: final/);
    expect(keepAlives()).toBeGreaterThanOrEqual(2);
    // The connection the stream ran on is sound for the next request.
    expect((await post(r, startBody("restock aisle 6"))).status).toBe(200);
  });

  it("keeps the task running when the client aborts mid-stream, and frees the stream", async () => {
    const r = await serve({
      executor: new ScriptedExecutor(undefined, undefined, true),
      handler: { maxOpenStreamsPerCaller: 1 },
    });
    const abort = new AbortController();
    const res = await post(r, startBody("restock aisle 5", "m-abort"), { signal: abort.signal });
    const events = decodeSseStream(res.body as ReadableStream<Uint8Array>)[Symbol.asyncIterator]();
    const task = await nextEvent(events, "the task frame");
    const taskId = JSON.parse(task.data).result.id as string;
    await r.executor.release();
    expect(await nextEvent(events, "update 2")).toMatchObject({ id: "2", event: "update" });

    // The stream holds the caller's only stream slot while it waits for the robots.
    expect((await post(r, startBody("restock aisle 6", "m-other"))).status).toBe(429);
    abort.abort();
    await events.return?.(undefined);

    // The server notices the disconnect: the slot is free again and the socket is gone, while the task
    // is still working.
    await waitFor(async () => (await openConnections(r.server)) === 0);
    await waitFor(async () => {
      const res = await post(r, { jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id: taskId } });
      await res.body?.cancel();
      return res.status === 200;
    });
    expect(r.executor.contexts[0]?.signal.aborted).toBe(false);
    expect((await getTask(r, taskId)).body.result.status.state).toBe("working");

    await r.executor.release();
    await r.executor.release();
    await waitFor(async () => (await getTask(r, taskId)).body.result.status.state === "completed");
    expect(r.executor.dispatched).toBe(1);
    // Nothing is left watching the log for this task.
    await waitFor(() => watchersOf(r.stores, taskId) === 0);
    expect(r.errors).toEqual([]);
  });

  it("drops a client that stops reading once its backlog passes the bound; the task goes on, a reattach loses nothing", async () => {
    const r = await serve({ executor: new BulkyExecutor(8000), handler: { maxStreamBacklogBytes: 256 * 1024 } });
    const reading = allEvents(await post(r, startBody("restock aisle 4", "m-keeps-up")));
    const res = await post(r, startBody("restock aisle 5", "m-slow"));
    const reader = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    const first = new TextDecoder().decode((await reader.read()).value);
    const taskId = JSON.parse(first.split("data: ")[1]?.split("\n")[0] ?? "{}").result.id as string;
    // From here on this client reads nothing: ~33 MB of events would pile up for it without the bound.
    await waitFor(async () => (await getTask(r, taskId)).body.result.status.state === "completed", 30_000);
    await expect(drain(reader)).rejects.toThrow();
    // A client that keeps reading is never dropped: it gets every event and the end.
    const kept = await reading;
    expect(kept.filter((e) => e.event === "update")).toHaveLength(8000);
    expect(kept.at(-1)?.event).toBe("final");
    // Nothing was lost for the dropped one either: a reattach replays every event after the first.
    const replay = await allEvents(
      await post(
        r,
        { jsonrpc: "2.0", id: 9, method: "SubscribeToTask", params: { id: taskId } },
        { headers: { "last-event-id": "1" } },
      ),
    );
    expect(replay.filter((e) => e.event === "update")).toHaveLength(8000);
    expect(replay.at(-2)?.event).toBe("finished");
  }, 60_000);

  it("lets the server close promptly after a client dropped a stream", async () => {
    const r = await serve({ executor: new ScriptedExecutor(undefined, undefined, true) });
    const abort = new AbortController();
    const res = await post(r, startBody(), { signal: abort.signal });
    const events = decodeSseStream(res.body as ReadableStream<Uint8Array>)[Symbol.asyncIterator]();
    await nextEvent(events, "the task frame");
    abort.abort();
    await events.return?.(undefined);
    // server.close() only resolves once every response has ended; a leaked stream would hang it.
    const closed = new Promise<string>((resolve) => r.server.close(() => resolve("closed")));
    const timeout = new Promise<string>((resolve) => setTimeout(() => resolve("hung"), 2000).unref());
    expect(await Promise.race([closed, timeout])).toBe("closed");
    // The task itself was not touched by the disconnect.
    expect(r.executor.contexts[0]?.signal.aborted).toBe(false);
  });
});

describe("toNodeHandler over a real socket: HTTP edges", () => {
  /**
   * Sends the head of a POST that announces a large body, then only its first KiB, and resolves with
   * the first response line the server writes (or what ended the connection).
   */
  function announceLargeBody(r: Running, authorization: string | undefined): Promise<string> {
    const { port } = new URL(r.url);
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(
        `POST /api/v1/a2a HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n` +
          `${authorization ? `Authorization: ${authorization}\r\n` : ""}Content-Length: 900000\r\n\r\n${" ".repeat(1024)}`,
      );
    });
    return firstResponseLine(socket, (how, text) => `${how === "error" ? "error" : "closed"}: ${text}`);
  }

  it("adds the `headers` option to every answer: a stream, a JSON answer, a refusal and a 405", async () => {
    const r = await serve({ node: { headers: { "x-frame-options": "DENY", "referrer-policy": "no-referrer" } } });
    const stream = await post(r, startBody());
    const json = await post(r, { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "none" } });
    const refused = await post(r, startBody(), { headers: { authorization: "Bearer nobody" } });
    const wrongMethod = await fetch(r.url);
    for (const res of [stream, json, refused, wrongMethod]) {
      expect(res.headers.get("x-frame-options")).toBe("DENY");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    }
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect((await allEvents(stream)).at(-1)?.event).toBe("final");
    expect(json.headers.get("content-type")).toMatch(/^application\/json/);
    expect(refused.status).toBe(401);
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
  });

  it("refuses a request without a valid token from its headers, before the body has arrived", async () => {
    const r = await serve();
    // The rest of the body never comes: the answer must not wait for it.
    expect(await announceLargeBody(r, undefined)).toBe("HTTP/1.1 401 Unauthorized");
    expect(await announceLargeBody(r, "Bearer nobody")).toBe("HTTP/1.1 401 Unauthorized");
    expect(await announceLargeBody(r, "Bearer user-a")).toBe("HTTP/1.1 403 Forbidden");
  });

  it("answers 503 with Retry-After beyond maxRequestsInFlight, and serves again once they are done", async () => {
    let releaseAuth: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      releaseAuth = resolve;
    });
    const r = await serve({
      handler: {
        maxRequestsInFlight: 2,
        authenticate: async () => {
          await gate;
          return { ok: true, workspaceId: "ws-a" };
        },
      },
    });
    const held = [
      post(r, { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
      post(r, { jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: "x" } }),
    ];
    await new Promise((resolve) => setTimeout(resolve, 50));
    const refused = await post(r, { jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "x" } });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("1");
    releaseAuth();
    expect((await Promise.all(held)).map((res) => res.status)).toEqual([200, 200]);
    expect((await post(r, { jsonrpc: "2.0", id: 4, method: "GetTask", params: { id: "x" } })).status).toBe(200);
  });

  it("answers 413 with a JSON-RPC error for a body over maxBodyBytes (declared length)", async () => {
    const r = await serve({ handler: { maxBodyBytes: 1024 } });
    const res = await post(r, { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x".repeat(2000) } });
    expect(res.status).toBe(413);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = JsonRpcErrorResponse.parse(await res.json());
    expect(body.id).toBeNull();
    expect(body.error.code).toBe(ERROR_CODES.InvalidRequest);
    expect(body.error.message).toMatch(/larger than 1024 bytes/);
  });

  it("answers 413 to a large upload (declared or chunked) and keeps serving that client's next requests", async () => {
    const r = await serve({ handler: { maxBodyBytes: 1024 } });
    const size = 1024 * 1024;
    const chunked = () => {
      let sent = 0;
      return new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent >= size) return controller.close();
          controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
          sent += 16 * 1024;
        },
      });
    };
    // Each request gets a deadline, so a stuck connection fails here rather than at the test timeout.
    const send = (body: BodyInit) =>
      fetch(r.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer partner-a" },
        body,
        duplex: "half",
        signal: AbortSignal.timeout(3000),
      } as RequestInit);
    const small = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "nope" } });
    for (const round of [1, 2, 3]) {
      for (const [kind, upload] of [
        ["declared", () => new Uint8Array(size).fill(0x20)],
        ["chunked", chunked],
      ] as const) {
        const label = `${kind} upload, round ${round}`;
        const res = await send(upload()).catch((error: Error) => {
          throw new Error(
            `${label}: ${error.message} (${String((error.cause as Error | undefined)?.message ?? error.cause)})`,
          );
        });
        expect(res.status, label).toBe(413);
        expect(JsonRpcErrorResponse.parse(await res.json()).error.code, label).toBe(ERROR_CODES.InvalidRequest);
        const next = await send(small);
        expect((await next.json()).error.code, `request after the ${label}`).toBe(ERROR_CODES.TaskNotFound);
      }
    }
  });

  it.each(["GET", "PUT", "DELETE"])("answers %s with 405, Allow: POST and a JSON-RPC error", async (method) => {
    const r = await serve();
    const res = await fetch(r.url, { method, headers: { authorization: "Bearer partner-a" } });
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("POST");
    const body = JsonRpcErrorResponse.parse(await res.json());
    expect(body).toMatchObject({ id: null, error: { code: ERROR_CODES.InvalidRequest } });
  });

  it("answers 401 with WWW-Authenticate and a JSON body, never a stream, for a missing token", async () => {
    const r = await serve();
    const res = await fetch(r.url, { method: "POST", body: JSON.stringify(startBody()) });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(JsonRpcErrorResponse.parse(await res.json())).toMatchObject({
      id: null,
      error: { code: ERROR_CODES.InvalidRequest },
    });
    expect(r.executor.dispatched).toBe(0);
  });

  describe("behind a body parser that already consumed the request (as express.json() does)", () => {
    /** Reads the whole body, stores it on req.body the way a parser would, then calls the node handler. */
    const parsing =
      (as: "json" | "text" | "buffer"): Wrap =>
      (node) =>
      (req, res) => {
        void (async () => {
          const chunks: Buffer[] = [];
          for await (const chunk of req) chunks.push(chunk as Buffer);
          const raw = Buffer.concat(chunks);
          const target = req as IncomingMessage & { body?: unknown };
          target.body = as === "json" ? JSON.parse(raw.toString("utf8")) : as === "text" ? raw.toString("utf8") : raw;
          expect(req.readableEnded).toBe(true);
          await node(req, res);
        })();
      };

    it.each(["json", "text", "buffer"] as const)(
      "still streams a task and answers GetTask (req.body as %s)",
      async (as) => {
        const r = await serve({ wrap: parsing(as) });
        const events = await allEvents(await post(r, startBody("restock aisle 5", `m-parsed-${as}`)));
        expect(events.map((e) => `${e.event}:${e.id}`)).toEqual([
          "task:1",
          "update:2",
          "update:3",
          "finished:4",
          "final:5",
        ]);
        const taskId = events[0]?.json.result.id as string;
        expect(events[0]?.json.id).toBe("start");
        const polled = await getTask(r, taskId);
        expect(polled.status).toBe(200);
        expect(polled.body.result).toMatchObject({ id: taskId, status: { state: "completed" } });
        expect(polled.body.result.history[0].parts).toEqual([{ kind: "text", text: "restock aisle 5" }]);
      },
    );

    it("still enforces maxBodyBytes on a pre-parsed body", async () => {
      const r = await serve({ wrap: parsing("json"), handler: { maxBodyBytes: 1024 } });
      const res = await post(r, { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x".repeat(2000) } });
      expect(res.status).toBe(413);
      expect(JsonRpcErrorResponse.parse(await res.json()).error.code).toBe(ERROR_CODES.InvalidRequest);
    });
  });
});

describe("toNodeHandler over a real socket: hostile bodies", () => {
  const deep = (depth: number, open: string, close: string, inner = "1") =>
    open.repeat(depth) + inner + close.repeat(depth);

  /** Hand-picked bodies: each kind named in the brief at least once, at its worst. */
  const fixed: Array<[string, string | Bytes]> = [
    ["empty body", ""],
    ["whitespace", "  \n\t "],
    ["null", "null"],
    ["true", "true"],
    ["number", "42"],
    ["string", '"SendStreamingMessage"'],
    ["empty array", "[]"],
    ["batch", JSON.stringify([startBody(), startBody()])],
    ["empty object", "{}"],
    ["array nested 10k deep", deep(10_000, "[", "]")],
    ["object nested 10k deep", deep(10_000, '{"a":', "}")],
    ["params nested 10k deep", `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":${deep(10_000, '{"a":', "}")}}`],
    ["id nested 10k deep", `{"jsonrpc":"2.0","id":${deep(10_000, "[", "]")},"method":"GetTask","params":{"id":"x"}}`],
    [
      "message metadata nested 10k deep",
      `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"role":"user","parts":[{"kind":"text","text":"x"}],"metadata":${deep(10_000, '{"a":', "}")}},"metadata":{"storeId":"store-001"}}}`,
    ],
    [
      "data part nested 10k deep",
      `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"role":"user","parts":[{"kind":"text","text":"x"},{"kind":"data","data":${deep(10_000, '{"a":', "}")}}]},"metadata":{"storeId":"store-001"}}}`,
    ],
    [
      "params.metadata nested 10k deep",
      `{"jsonrpc":"2.0","id":1,"method":"SendStreamingMessage","params":{"message":{"role":"user","parts":[{"kind":"text","text":"x"}]},"metadata":{"storeId":"store-001","extra":${deep(10_000, '{"a":', "}")}}}}`,
    ],
    [
      "GetTask params.metadata nested 10k deep",
      `{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x","metadata":${deep(10_000, "[", "]")}}}`,
    ],
    ["huge id", '{"jsonrpc":"2.0","id":1e400,"method":"GetTask","params":{"id":"x"}}'],
    ["huge negative id", '{"jsonrpc":"2.0","id":-1e400,"method":"GetTask","params":{"id":"x"}}'],
    ["long integer id", '{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"GetTask","params":{"id":"x"}}'],
    ["huge historyLength", '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x","historyLength":1e400}}'],
    [
      "huge integer historyLength",
      '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x","historyLength":1e300}}',
    ],
    ["fractional historyLength", '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x","historyLength":0.5}}'],
    [
      "long id string",
      JSON.stringify({ jsonrpc: "2.0", id: "i".repeat(5000), method: "GetTask", params: { id: "x" } }),
    ],
    ["long method", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "m".repeat(100_000) })],
    ["long task id", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t".repeat(100_000) } })],
    [
      "__proto__ keys",
      '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"__proto__":{"id":"x"},"constructor":{"prototype":{}}}}',
    ],
    ["invalid UTF-8", new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    ["lone surrogate as WTF-8", new Uint8Array([0x22, 0xed, 0xa0, 0x80, 0x22])],
    ["UTF-8 BOM", new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(JSON.stringify(startBody()))])],
    ["NUL bytes", "\u0000\u0000\u0000"],
    ["escaped lone surrogates", '{"jsonrpc":"2.0","id":"\\ud800","method":"GetTask","params":{"id":"\\udfff"}}'],
    ["unicode method", JSON.stringify({ jsonrpc: "2.0", id: "🙂", method: "ＧｅｔＴａｓｋ", params: { id: "x" } })],
    ["text of only control characters", JSON.stringify({ ...startBody(), params: startParams("\u0000\u0001\u200b") })],
    [
      "storeId with CR/LF",
      JSON.stringify({ ...startBody(), params: startParams("x", undefined, "store-\r\nevent: final") }),
    ],
    ["messageId with CR/LF", JSON.stringify({ ...startBody(), params: startParams("x", "m\r\n\r\ndata: {}") })],
    ["id with CR/LF", JSON.stringify({ ...startBody(), id: "a\r\nevent: finished\r\n\r\n" })],
  ];

  const validStart = JSON.stringify(startBody("restock aisle 5", "m-fuzz"));
  const anyJson = fc.jsonValue({ maxDepth: 3 });
  const wrongTyped = fc.anything({ maxDepth: 2, withBigInt: false, withDate: true, withMap: false, withSet: false });

  /** Envelopes and params with a wrong value in one field (or several), for every method and alias. */
  const wrongFields = fc
    .record(
      {
        method: fc.constantFrom(
          "SendStreamingMessage",
          "message/stream",
          "SubscribeToTask",
          "tasks/resubscribe",
          "GetTask",
          "tasks/get",
          "CancelTask",
          "tasks/cancel",
          "SendMessage",
          "GetExtendedAgentCard",
        ),
        jsonrpc: fc.oneof(fc.constant("2.0"), wrongTyped),
        id: fc.oneof(fc.string(), fc.integer(), wrongTyped),
        params: fc.oneof(
          wrongTyped,
          fc.record(
            {
              id: wrongTyped,
              historyLength: wrongTyped,
              message: fc.oneof(
                wrongTyped,
                fc.record(
                  {
                    role: fc.oneof(fc.constantFrom("user", "agent"), wrongTyped),
                    messageId: fc.oneof(fc.string(), wrongTyped),
                    parts: fc.oneof(
                      wrongTyped,
                      fc.array(
                        fc.oneof(
                          fc.record({
                            kind: fc.constant("text"),
                            text: fc.oneof(fc.string({ unit: "grapheme" }), wrongTyped),
                          }),
                          fc.record({ kind: wrongTyped, text: wrongTyped }, { requiredKeys: [] }),
                        ),
                        { maxLength: 3 },
                      ),
                    ),
                    taskId: wrongTyped,
                    contextId: wrongTyped,
                    metadata: wrongTyped,
                  },
                  { requiredKeys: [] },
                ),
              ),
              metadata: fc.oneof(
                wrongTyped,
                fc.record({ storeId: fc.oneof(fc.constant("store-001"), wrongTyped) }, { requiredKeys: [] }),
              ),
              configuration: wrongTyped,
            },
            { requiredKeys: [] },
          ),
        ),
      },
      { requiredKeys: ["method"] },
    )
    .map((v) => JSON.stringify(v) ?? "undefined");

  const body = fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((bytes) => bytes as Bytes),
    fc.nat({ max: validStart.length - 1 }).map((n) => validStart.slice(0, n)),
    anyJson.map((v) => JSON.stringify(v)),
    fc.string({ unit: "binary", maxLength: 200 }),
    fc
      .string({ unit: "grapheme", maxLength: 200 })
      .map((text) => JSON.stringify({ ...startBody(), params: startParams(text) })),
    fc.array(anyJson, { maxLength: 4 }).map((v) => JSON.stringify(v)),
    fc.constantFrom("null", "[]", "", "{}", "1e999", "-0", '"\\u0000"', "[[[[", "{{{{", '{"jsonrpc":"2.0"'),
    wrongFields,
    wrongFields,
    wrongFields,
  );

  interface Outcome {
    name: string;
    payload: string | Bytes;
    status: number;
    type: string;
    /** The parsed JSON body, for JSON answers. */
    json?: unknown;
    /** The events, for stream answers. */
    events?: string[];
  }

  // One server and one barrage for the tests below, each asserting one property of the outcomes.
  let r: Running;
  let taskId: string;
  const outcomes: Outcome[] = [];

  beforeAll(async () => {
    r = await serve({ detached: true });
    // A task that exists before the barrage, to poll afterwards.
    const before = await allEvents(await post(r, startBody("restock aisle 5", "m-before")));
    taskId = before[0]?.json.result.id as string;
    expect(before.at(-2)?.event).toBe("finished");

    const send = async (name: string, payload: string | Bytes): Promise<Outcome> => {
      const res = await post(r, payload);
      const type = res.headers.get("content-type") ?? "";
      const outcome: Outcome = { name, payload, status: res.status, type };
      // Some generated bodies are valid task starts (the executor finishes at once): read them to the end.
      if (type.startsWith("text/event-stream")) outcome.events = (await allEvents(res)).map((e) => e.event);
      else {
        const text = await res.text();
        try {
          outcome.json = JSON.parse(text);
        } catch {
          outcome.json = { notJson: text.slice(0, 200) };
        }
      }
      return outcome;
    };
    for (const [name, payload] of fixed) outcomes.push(await send(name, payload));
    const samples = fc.sample(body, { numRuns: 1000, seed: 20_240_611 });
    // A few at a time: keeps the run short without flooding a two-core machine.
    for (let i = 0; i < samples.length; i += 8) {
      outcomes.push(
        ...(await Promise.all(samples.slice(i, i + 8).map((payload, j) => send(`sample ${i + j}`, payload)))),
      );
    }
  });

  afterAll(async () => {
    await r.handler.close({ graceMs: 0 });
    r.server.closeAllConnections();
    await new Promise<void>((resolve) => r.server.close(() => resolve()));
  });

  it("answers every one of 1,000+ malformed bodies without a 5xx, with a JSON-RPC error or a well-formed stream", () => {
    expect(outcomes).toHaveLength(fixed.length + 1000);
    const bad: string[] = [];
    for (const o of outcomes) {
      if (o.status >= 500) bad.push(`${o.name}: HTTP ${o.status} for ${show(o.payload)}`);
      else if (o.events) {
        const ok = o.events[0] === "task" && o.events.at(-2) === "finished" && o.events.at(-1) === "final";
        if (!ok) bad.push(`${o.name}: malformed stream ${o.events.join(",")} for ${show(o.payload)}`);
      } else if (!/^application\/json/.test(o.type)) bad.push(`${o.name}: content-type ${o.type}`);
      else {
        const parsed = JsonRpcErrorResponse.safeParse(o.json);
        if (!parsed.success) bad.push(`${o.name}: not a JSON-RPC error: ${JSON.stringify(o.json).slice(0, 200)}`);
        else if (!(Object.values(ERROR_CODES) as number[]).includes(parsed.data.error.code)) {
          bad.push(`${o.name}: unknown error code ${parsed.data.error.code}`);
        }
      }
    }
    expect(bad).toEqual([]);
    // The barrage did reach past the envelope checks: every kind of answer occurred.
    const codes = new Set(outcomes.map((o) => (o.json as { error?: { code?: number } } | undefined)?.error?.code));
    for (const code of [
      ERROR_CODES.ParseError,
      ERROR_CODES.InvalidRequest,
      ERROR_CODES.MethodNotFound,
      ERROR_CODES.InvalidParams,
    ]) {
      expect(codes).toContain(code);
    }
  });

  it("still answers a valid GetTask after the barrage", async () => {
    const polled = await getTask(r, taskId);
    expect(polled.status).toBe(200);
    expect(polled.body.result).toMatchObject({ id: taskId, status: { state: "completed" } });
  });

  it("blames the client, not itself: no -32603 Internal error and nothing logged as a failure", () => {
    const internal = outcomes
      .filter((o) => (o.json as { error?: { code?: number } } | undefined)?.error?.code === ERROR_CODES.InternalError)
      .map((o) => o.name);
    expect(internal).toEqual([]);
    expect(r.errors.map((e) => String((e as { err?: unknown }).err))).toEqual([]);
  });
});

function show(payload: string | Bytes): string {
  const text = typeof payload === "string" ? payload : `bytes ${Buffer.from(payload).toString("hex")}`;
  return text.length > 200 ? `${text.slice(0, 200)}… (${text.length} chars)` : text;
}
