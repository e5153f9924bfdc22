// The published client (@a2a-partner/a2a-client, built dist) against the real reference server, through a
// TCP proxy that can cut connections at chosen points of the response: the resume logic meets real
// sockets, the real handler's replay rules and the real event log, on PGlite and on PostgreSQL.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { connect, createServer, type Server as NetServer, type Socket } from "node:net";
import { dirname, join } from "node:path";
import {
  A2AClient,
  type A2AClientOptions,
  AuthenticationError,
  InvalidParamsError,
  PermissionError,
  TaskNotCancelableError,
  TaskNotFoundError,
  type TaskStreamEvent,
} from "@a2a-partner/a2a-client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Backend, createTestDatabase, postgresAvailable, type TestDatabase } from "./support/backends.ts";
import { loggedSeqs } from "./support/event-log.ts";
import { serverPerSuite } from "./support/server-per-suite.ts";
import { startTestServer, type TestServer } from "./support/test-server.ts";

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

/**
 * What the proxy does to one connection: cut it while the request is on its way (the server gets its
 * headers and part of its body), as soon as the server starts answering (the request got through, the
 * client gets nothing), or after `frames` complete SSE frames of the answer's body plus `bytes` more
 * (mid-frame when `bytes` > 0) by a TCP reset (default), a clean close (FIN), or a stall: the
 * connection stays open but no further byte reaches the client.
 */
type Cut =
  | { duringRequest: true }
  | { beforeAnswer: true }
  | { frames: number; bytes: number; how?: "reset" | "close" | "stall" };

/** One request seen by the proxy. */
interface SeenRequest {
  /** `SendStreamingMessage@0`: the JSON-RPC method and the Last-Event-ID header (`-` when absent). */
  call: string;
  authorization: boolean;
  /** The `A2A-Version` header (`-` when absent). */
  version: string;
}

/** A TCP proxy in front of the server that cuts chosen connections and records the requests it forwards. */
class CuttingProxy {
  readonly #server: NetServer;
  readonly #sockets = new Set<Socket>();
  target = 0;
  url = "";
  plan: (connection: number) => Cut | undefined = () => undefined;
  connections = 0;
  /** The connections that were cut. */
  cuts: number[] = [];
  requests: SeenRequest[] = [];

  constructor() {
    this.#server = createServer((socket) => this.#relay(socket));
  }

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    const address = this.#server.address();
    if (!address || typeof address === "string") throw new Error("no address");
    this.url = `http://127.0.0.1:${address.port}`;
    return this;
  }

  /** A new plan; counters start again at connection 0. */
  reset(plan: (connection: number) => Cut | undefined = () => undefined): void {
    this.plan = plan;
    this.connections = 0;
    this.cuts = [];
    this.requests = [];
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #relay(client: Socket): void {
    const index = this.connections++;
    const cut = this.plan(index);
    const upstream = connect(this.target, "127.0.0.1");
    this.#sockets.add(client).add(upstream);
    // Once cut, nothing more goes to the client; a stalled connection stays open until the client gives up.
    let dead = false;
    const kill = () => {
      dead = true;
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on("error", kill);
      socket.on("close", kill);
    }
    let sent = Buffer.alloc(0);
    const sniffer = new RequestSniffer((request) => {
      this.requests.push(request);
      if (cut && "duringRequest" in cut) {
        // The whole request is in hand: pass on all but its last bytes, then reset both sides.
        this.cuts.push(index);
        upstream.write(sent.subarray(0, sent.length - 8), () => kill());
      }
    });
    client.on("data", (chunk: Buffer) => {
      if (cut && "duringRequest" in cut) sent = Buffer.concat([sent, chunk]);
      else upstream.write(chunk);
      sniffer.push(chunk);
    });
    const streamCut = cut && "frames" in cut ? cut : undefined;
    const counter = streamCut ? new FrameCounter(streamCut.frames, streamCut.bytes) : undefined;
    upstream.on("data", (chunk: Buffer) => {
      if (dead) return;
      if (cut && "beforeAnswer" in cut) {
        this.cuts.push(index);
        kill();
        return;
      }
      const keep = counter?.bytesBeforeCut(chunk);
      if (keep === undefined) {
        client.write(chunk);
        return;
      }
      this.cuts.push(index);
      dead = true;
      const how = streamCut?.how;
      client.write(chunk.subarray(0, keep), () => {
        if (how === "close") client.end();
        else if (how !== "stall") client.resetAndDestroy();
      });
    });
  }
}

/** Finds where to cut a response: after its headers, `frames` SSE frame ends ("\n\n"), then `bytes` more. */
class FrameCounter {
  #recent = 0;
  #headersDone = false;
  #frames = 0;
  #extra = 0;

  constructor(
    readonly frames: number,
    readonly bytes: number,
  ) {}

  /** How many bytes of `chunk` to forward before cutting, or undefined to forward all of it. */
  bytesBeforeCut(chunk: Buffer): number | undefined {
    for (let i = 0; i < chunk.length; i++) {
      if (this.#headersDone && this.#frames >= this.frames) {
        if (this.#extra >= this.bytes) return i;
        this.#extra++;
      }
      this.#recent = ((this.#recent << 8) | (chunk[i] as number)) >>> 0;
      if (!this.#headersDone) {
        this.#headersDone = this.#recent === 0x0d0a0d0a;
      } else if ((this.#recent & 0xffff) === 0x0a0a) {
        this.#frames++;
      }
    }
    return undefined;
  }
}

/** Reads HTTP/1.1 requests off a connection (keep-alive: several in a row) to log method and Last-Event-ID. */
class RequestSniffer {
  #buffer = Buffer.alloc(0);

  constructor(readonly onRequest: (request: SeenRequest) => void) {}

  push(chunk: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const end = this.#buffer.indexOf("\r\n\r\n");
      if (end < 0) return;
      const head = this.#buffer.subarray(0, end).toString("latin1");
      const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
      if (this.#buffer.length < end + 4 + length) return;
      const body = this.#buffer.subarray(end + 4, end + 4 + length).toString("utf8");
      this.#buffer = this.#buffer.subarray(end + 4 + length);
      const [verb, path] = head.split(" ");
      let method = `${verb} ${path}`;
      try {
        method = (JSON.parse(body) as { method?: string }).method ?? method;
      } catch {
        // not a JSON-RPC call (the agent card, an HTTP+JSON GET)
      }
      const lastEventId = /\r\nlast-event-id:\s*(\S+)/i.exec(head)?.[1] ?? "-";
      const version = /\r\na2a-version:\s*(\S+)/i.exec(head)?.[1] ?? "-";
      this.onRequest({ call: `${method}@${lastEventId}`, authorization: /\r\nauthorization:/i.test(head), version });
    }
  }
}

async function collect(stream: AsyncIterable<TaskStreamEvent>): Promise<TaskStreamEvent[]> {
  const events: TaskStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe.each(backends)("A2AClient against the reference server on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let proxy: CuttingProxy;
  let token: string;
  const clients: A2AClient[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    proxy = await new CuttingProxy().listen();
    // The card must name the address clients use: the proxy's, known before the server starts.
    server = await startTestServer(database.db, { publicUrl: proxy.url, robotStepMs: 50 });
    proxy.target = Number(new URL(server.url).port);
    token = server.seeded.partnerToken;
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    proxy.reset();
  });
  afterAll(async () => {
    await server?.stop();
    await proxy?.close();
    await database?.drop();
  });

  function client(options: Partial<A2AClientOptions> = {}): A2AClient {
    const created = new A2AClient({
      baseUrl: proxy.url,
      token,
      backoff: { initialDelayMs: 10, maxDelayMs: 40 },
      ...options,
    });
    clients.push(created);
    return created;
  }

  async function executions(taskId: string): Promise<number> {
    const { rows } = await database.db.query<{ n: number }>(
      "select count(*)::int as n from workflow_executions where task_id = $1",
      [taskId],
    );
    return rows[0]?.n ?? 0;
  }

  async function finishedTask(c = client()): Promise<{ taskId: string; events: TaskStreamEvent[] }> {
    const stream = c.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
    const events = await collect(stream);
    return { taskId: stream.taskId as string, events };
  }

  it("follows a task to the end through five cuts, three before the task id is known: every event once, robots dispatched once", async () => {
    proxy.reset(
      (n) =>
        [
          { duringRequest: true } as const, // the start never fully reached the server
          { beforeAnswer: true } as const, // the start reached the server; not one byte came back
          { frames: 0, bytes: 12 }, // a reset inside the first frame: the task id is still unknown
          { frames: 3, bytes: 40, how: "close" as const }, // task + two updates, then a clean close mid-frame
          { frames: 2, bytes: 7, how: "stall" as const }, // the reattach's snapshot + one event, then silence
        ][n],
    );
    const retries: string[] = [];
    const c = client({ onRetry: (info) => retries.push(`${info.kind}: ${info.error.name}`), streamIdleTimeoutMs: 300 });
    const stream = c.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
    const events = await collect(stream);
    const taskId = stream.taskId as string;

    expect(proxy.cuts).toEqual([0, 1, 2, 3, 4]);
    // The lost start is sent again with the same messageId until the task id is known, then reattached.
    const calls = proxy.requests.map((r) => r.call);
    expect(calls.slice(0, 4)).toEqual([
      "SendStreamingMessage@-",
      "SendStreamingMessage@0",
      "SendStreamingMessage@0",
      "SendStreamingMessage@0",
    ]);
    expect(calls.slice(4).map((call) => call.split("@")[0])).toEqual(["SubscribeToTask", "SubscribeToTask"]);
    const resumedAfter = calls.slice(4).map((call) => Number(call.split("@")[1]));
    expect(resumedAfter[0]).toBeGreaterThanOrEqual(2);
    expect(resumedAfter[1]).toBeGreaterThan(resumedAfter[0] as number);
    // Each kind of drop was seen as one: a reset, a clean close, and a stall (the idle timeout).
    expect(retries).toEqual([
      "request: APIConnectionError",
      "request: APIConnectionError",
      "resume: APIConnectionError",
      "resume: APIConnectionError",
      "resume: APITimeoutError",
    ]);

    // Each event of the durable log exactly once, in order, ending with the one `finished`.
    expect(events.map((e) => e.eventId)).toEqual((await loggedSeqs(database.db, taskId)).map(String));
    expect(events.filter((e) => e.type === "task")).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: "finished", state: "completed" });
    await expect(stream.finished).resolves.toMatchObject({ eventId: events.at(-1)?.eventId });
    expect(stream.lastEventId).toBe(events.at(-1)?.eventId);
    expect((await stream.task).metadata.messageId).toBe(stream.messageId);
    expect(await executions(taskId)).toBe(1);
    const tasks = await database.db.query<{ n: number }>("select count(*)::int as n from tasks where message_id = $1", [
      stream.messageId,
    ]);
    expect(tasks.rows[0]?.n).toBe(1);
  });

  it("follows a subscription from the caller's lastEventId through two cuts", async () => {
    const c = client();
    const start = c.sendStreamingMessage({ text: "Restock aisle 7", storeId: "store-001" });
    const first: TaskStreamEvent[] = [];
    for await (const event of start) {
      first.push(event);
      if (event.type === "update") break; // the caller walks away after one update
    }
    const taskId = start.taskId as string;
    const lastSeen = first.at(-1)?.eventId as string;

    proxy.reset((n) => [{ frames: 2, bytes: 3 } as const, { frames: 1, bytes: 30 } as const][n]);
    const rest = await collect(c.subscribeToTask(taskId, { lastEventId: lastSeen }));

    expect(proxy.cuts).toEqual([0, 1]);
    expect(proxy.requests.map((r) => r.call)[0]).toBe(`SubscribeToTask@${lastSeen}`);
    expect([...first, ...rest].map((e) => e.eventId)).toEqual((await loggedSeqs(database.db, taskId)).map(String));
    expect(rest.some((e) => e.type === "task")).toBe(false);
    expect(rest.at(-1)).toMatchObject({ type: "finished", state: "completed" });
    expect(await executions(taskId)).toBe(1);
  });

  it("subscribeToTask replays only what came after lastEventId; with none, starts at the snapshot", async () => {
    const c = client();
    const { taskId, events } = await finishedTask(c);
    const log = (await loggedSeqs(database.db, taskId)).map(String);
    expect(events.map((e) => e.eventId)).toEqual(log);

    const fromThree = await collect(c.subscribeToTask(taskId, { lastEventId: 3 }));
    expect(fromThree.map((e) => e.eventId)).toEqual(log.filter((seq) => Number(seq) > 3));
    expect(fromThree.at(-1)).toMatchObject({ type: "finished", state: "completed" });

    const whole = await collect(c.subscribeToTask(taskId));
    expect(whole.map((e) => e.type)).toEqual(["task", "finished"]);
    expect(whole[0]).toMatchObject({ type: "task", task: { id: taskId, status: { state: "completed" } } });

    // Everything already seen: nothing to deliver, but the stream still ends with the task's outcome.
    const caughtUp = c.subscribeToTask(taskId, { lastEventId: log.at(-1) as string });
    expect(await collect(caughtUp)).toEqual([]);
    await expect(caughtUp.finished).resolves.toMatchObject({ state: "completed", eventId: log.at(-1) });
  });

  it("round-trips getTask and cancelTask; the stream ends canceled and the robots stop", async () => {
    // Robots that take a minute a step, so the task is still working when the cancel arrives however
    // slow this machine is (the suite's own robots finish a task in a quarter of a second).
    const slow = await startTestServer(database.db, { publicUrl: proxy.url, robotStepMs: 60_000 });
    proxy.target = Number(new URL(slow.url).port);
    try {
      await cancelRoundTrip(client({ token: slow.seeded.partnerToken }));
    } finally {
      proxy.target = Number(new URL(server.url).port);
      await slow.stop();
    }
  });

  async function cancelRoundTrip(c: A2AClient): Promise<void> {
    const stream = c.sendStreamingMessage({ text: "Count inventory in aisle 7", storeId: "store-001" });
    const started = await stream.task;
    expect(started.status.state).toBe("working");

    const polled = await c.getTask(started.id);
    expect(polled).toMatchObject({ id: started.id, status: { state: "working" }, metadata: { storeId: "store-001" } });
    expect(polled.history.length).toBeGreaterThan(0);
    expect((await c.getTask(started.id, { historyLength: 0 })).history).toEqual([]);

    const canceled = await c.cancelTask(started.id);
    expect(canceled).toMatchObject({ id: started.id, status: { state: "canceled" } });
    expect((await stream.finished).state).toBe("canceled");
    expect((await c.getTask(started.id)).status.state).toBe("canceled");

    const again = await c.cancelTask(started.id).catch((error: unknown) => error);
    expect(again).toBeInstanceOf(TaskNotCancelableError);
    expect((again as TaskNotCancelableError).data).toMatchObject({ state: "canceled" });
    await expect
      .poll(async () => {
        const { rows } = await database.db.query<{ status: string }>(
          "select status from workflow_executions where task_id = $1",
          [started.id],
        );
        return rows[0]?.status;
      })
      .toBe("canceled");
  }

  it("raises the typed error for each refusal of the real server, without retrying it", async () => {
    const mine = await finishedTask();

    proxy.reset();
    const notCancelable = await client()
      .cancelTask(mine.taskId)
      .catch((e: unknown) => e);
    expect(notCancelable).toBeInstanceOf(TaskNotCancelableError);
    expect((notCancelable as TaskNotCancelableError).data).toMatchObject({ state: "completed" });

    const stranger = client({ token: server.otherPartnerToken });
    for (const id of [mine.taskId, crypto.randomUUID(), "not-a-task-id"]) {
      await expect(stranger.getTask(id)).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(stranger.cancelTask(id)).rejects.toBeInstanceOf(TaskNotFoundError);
      await expect(stranger.subscribeToTask(id).finished).rejects.toBeInstanceOf(TaskNotFoundError);
    }
    // The foreign task is untouched.
    expect((await client().getTask(mine.taskId)).status.state).toBe("completed");

    const refused = client().sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-999" });
    const invalid = await refused.finished.catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(InvalidParamsError);
    expect((invalid as InvalidParamsError).data).toMatchObject({ field: "params.metadata.storeId" });
    await expect(collect(refused)).rejects.toBeInstanceOf(InvalidParamsError);

    proxy.reset();
    const anonymous = await client({ token: "a2a_p_not-a-real-token" })
      .getTask(mine.taskId)
      .catch((e: unknown) => e);
    expect(anonymous).toBeInstanceOf(AuthenticationError);
    expect(anonymous).toMatchObject({ status: 401 });
    expect((anonymous as AuthenticationError).headers.get("www-authenticate")).toMatch(/^Bearer/);
    const unauthStream = client({ token: "a2a_p_not-a-real-token" }).sendStreamingMessage({
      text: "Restock aisle 5",
      storeId: "store-001",
    });
    await expect(unauthStream.finished).rejects.toBeInstanceOf(AuthenticationError);

    const user = client({ token: server.seeded.userToken });
    const forbidden = await user.getTask(mine.taskId).catch((e: unknown) => e);
    expect(forbidden).toBeInstanceOf(PermissionError);
    expect(forbidden).toMatchObject({ status: 403 });
    await expect(
      user.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" }).finished,
    ).rejects.toBeInstanceOf(PermissionError);
    // 401 and 403 are final: one request each, no retry.
    expect(proxy.requests.map((r) => r.call)).toEqual([
      "GetTask@-",
      "SendStreamingMessage@-",
      "GetTask@-",
      "SendStreamingMessage@-",
    ]);
  });

  it("discovers the endpoint from the agent card URL alone, reading the card without the token", async () => {
    const c = client({ baseUrl: undefined, agentCardUrl: `${proxy.url}/.well-known/agent-card.json` });
    expect(c.endpoint).toBeUndefined();
    const { taskId, events } = await finishedTask(c);
    expect(c.endpoint).toBe(`${proxy.url}/api/v1/a2a`);
    expect(events.map((e) => e.eventId)).toEqual((await loggedSeqs(database.db, taskId)).map(String));
    const card = await c.discover();
    expect(card).toMatchObject({ name: "Store Operations Robots", capabilities: { streaming: true } });
    const cardRequests = proxy.requests.filter((r) => r.call.startsWith("GET /.well-known/agent-card.json"));
    expect(cardRequests).toHaveLength(2);
    expect(cardRequests.every((r) => !r.authorization)).toBe(true);
    expect(proxy.requests.filter((r) => r.call.startsWith("SendStreamingMessage")).every((r) => r.authorization)).toBe(
      true,
    );
  });

  it("speaks v1.0 once the card offers it: the same events, resumed after a cut with Last-Event-ID", async () => {
    const c = client();
    await c.discover();
    expect(c.protocolVersion).toBe("1.0");
    proxy.reset((n) => (n === 0 ? { frames: 3, bytes: 9 } : undefined));
    const { taskId, events } = await finishedTask(c);

    expect(proxy.cuts).toEqual([0]);
    const calls = proxy.requests.map((r) => r.call);
    expect(calls[0]).toBe("SendStreamingMessage@-");
    expect(calls[1]).toMatch(/^SubscribeToTask@[1-9]\d*$/);
    expect(proxy.requests.every((r) => r.version === "1.0")).toBe(true);
    // Read from v1.0 payloads (TASK_STATE_*, parts without kind), yet the same typed events, each once.
    expect(events.map((e) => e.eventId)).toEqual((await loggedSeqs(database.db, taskId)).map(String));
    expect(events[0]).toMatchObject({ type: "task", task: { kind: "task", id: taskId, status: { state: "working" } } });
    expect(events.at(-1)).toMatchObject({ type: "finished", state: "completed", update: { kind: "status-update" } });
    const task = await c.getTask(taskId);
    expect(task.status.state).toBe("completed");
    expect(task.history[0]?.parts[0]).toEqual({ kind: "text", text: "Restock aisle 5" });
    await expect(c.cancelTask(taskId)).rejects.toMatchObject({
      constructor: TaskNotCancelableError,
      data: { state: "completed" },
    });
    await expect(c.getTask("no-such-task")).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it("speaks HTTP+JSON when told to: every event once through cuts before and after the task id, typed errors", async () => {
    // Discovery finds the binding in the card (its own client: a pooled connection would dodge the cuts).
    const discovered = client({ binding: "http+json" });
    await discovered.discover();
    expect(discovered.endpoint).toBe(`${proxy.url}/api/v1/a2a`);
    const c = client({ binding: "http+json" });
    expect(c.binding).toBe("http+json");
    proxy.reset((n) => [{ beforeAnswer: true } as const, { frames: 0, bytes: 12 }, { frames: 3, bytes: 9 }][n]);
    const { taskId, events } = await finishedTask(c);

    expect(proxy.cuts).toEqual([0, 1, 2]);
    const calls = proxy.requests.map((r) => r.call);
    // The start goes again (same messageId, from event 0) until the task id is known, then a reattach.
    expect(calls.slice(0, 3)).toEqual([
      "POST /api/v1/a2a/message:stream@-",
      "POST /api/v1/a2a/message:stream@0",
      "POST /api/v1/a2a/message:stream@0",
    ]);
    expect(calls[3]).toMatch(new RegExp(`^POST /api/v1/a2a/tasks/${taskId}:subscribe@[1-9]\\d*$`));
    expect(events.map((e) => e.eventId)).toEqual((await loggedSeqs(database.db, taskId)).map(String));
    expect(events.at(-1)).toMatchObject({ type: "finished", state: "completed" });
    expect(await executions(taskId)).toBe(1);

    expect((await c.getTask(taskId, { historyLength: 1 })).status.state).toBe("completed");
    const page = await c.listTasks({ status: "completed", pageSize: 1 });
    expect(page.tasks).toHaveLength(1);
    await expect(c.cancelTask(taskId)).rejects.toMatchObject({
      constructor: TaskNotCancelableError,
      data: { state: "completed" },
    });
    await expect(c.getTask("no-such-task")).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(c.listTasks({ pageToken: "not-a-token-of-this-server" })).rejects.toBeInstanceOf(InvalidParamsError);
    await expect(client({ binding: "http+json", token: "wrong" }).getTask(taskId)).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it.each(["0.3", "1.0"] as const)("lists the caller's tasks page by page in v%s", async (protocolVersion) => {
    const since = new Date();
    const c = client({ protocolVersion });
    const created: string[] = [];
    for (let i = 0; i < 3; i++) created.push((await finishedTask(c)).taskId);

    const first = await c.listTasks({ statusTimestampAfter: since, pageSize: 2, historyLength: 0 });
    expect(first).toMatchObject({ pageSize: 2, totalSize: 3 });
    expect(first.nextPageToken).not.toBe("");
    expect(first.tasks[0]).toMatchObject({ kind: "task", status: { state: "completed" }, history: [] });
    expect(first.tasks[0]).not.toHaveProperty("artifacts");

    const all: string[] = [];
    for await (const listed of c.listAllTasks({ statusTimestampAfter: since, pageSize: 2, status: "completed" })) {
      all.push(listed.id);
    }
    expect([...all].sort()).toEqual([...created].sort());
    const versions = proxy.requests.filter((r) => r.call.startsWith("ListTasks")).map((r) => r.version);
    expect(versions).toEqual(Array(3).fill(protocolVersion === "1.0" ? "1.0" : "-"));

    await expect(c.listTasks({ pageToken: "not-a-token-of-this-server" })).rejects.toBeInstanceOf(InvalidParamsError);
  });

  it('speaks the slash method names with methodNames: "alias"', async () => {
    const c = client({ methodNames: "alias" });
    const { taskId, events } = await finishedTask(c);
    expect(events.map((e) => e.eventId)).toEqual((await loggedSeqs(database.db, taskId)).map(String));
    expect((await c.getTask(taskId)).status.state).toBe("completed");
    await expect(c.cancelTask(taskId)).rejects.toBeInstanceOf(TaskNotCancelableError);
    expect((await collect(c.subscribeToTask(taskId))).at(-1)).toMatchObject({ type: "finished" });
    expect(proxy.requests.map((r) => r.call.split("@")[0])).toEqual([
      "message/stream",
      "tasks/get",
      "tasks/cancel",
      "tasks/resubscribe",
    ]);
  });
});

describe("the a2a-task CLI against the reference server (PGlite)", () => {
  const suite = serverPerSuite("pglite");
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve("@a2a-partner/a2a-client/package.json");
  const manifest = JSON.parse(readFileSync(manifestPath, "utf8")) as { bin: Record<string, string> };
  const cli = join(dirname(manifestPath), manifest.bin["a2a-task"] as string);

  function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [cli, ...args],
        {
          env: { ...process.env, A2A_URL: suite.server.url, A2A_TOKEN: suite.server.seeded.partnerToken },
          timeout: 20_000,
        },
        (error, stdout, stderr) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  it("runs a task to completion: exit 0, one parseable JSON line per event, then --attach replays the rest", async () => {
    const result = await run(["Restock aisle 5", "--store", "store-001", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trimEnd()
      .split("\n")
      .map((line) => JSON.parse(line) as TaskStreamEvent);
    expect(lines[0]).toMatchObject({ type: "task", task: { status: { state: "working" } } });
    expect(lines.at(-1)).toMatchObject({ type: "finished", state: "completed" });
    const taskId = (lines[0] as Extract<TaskStreamEvent, { type: "task" }>).task.id;
    const logged = await loggedSeqs(suite.database.db, taskId);
    expect(lines.map((line) => Number(line.eventId))).toEqual(logged);

    const attached = await run(["--attach", taskId, "--last-event-id", "3", "--json"]);
    expect(attached.code, attached.stderr).toBe(0);
    const rest = attached.stdout
      .trimEnd()
      .split("\n")
      .map((line) => (JSON.parse(line) as TaskStreamEvent).eventId);
    expect(rest).toEqual(logged.filter((seq) => seq > 3).map(String));
  });

  it("exits 2 for an unknown store and 3 for a rejected token, with the reason on stderr", async () => {
    const unknownStore = await run(["Restock aisle 5", "--store", "store-999"]);
    expect(unknownStore.code).toBe(2);
    expect(unknownStore.stderr).toContain("InvalidParamsError");
    const badToken = await run(["Restock aisle 5", "--store", "store-001", "--token", "a2a_p_wrong"]);
    expect(badToken.code).toBe(3);
    expect(badToken.stderr).toContain("AuthenticationError");
  });
});
