import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sseFrames } from "@a2a-partner/test-support/sse-frames";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type A2AHandler, createA2AHandler, toFetchHandler } from "../src/index.js";
import { toNodeHandler } from "../src/node.js";
import { StreamResponseV1, TaskV1 } from "../src/protocol/schemas/a2a-v1.js";
import { decodeSseStream } from "../src/protocol/sse/decoder.js";
import { createInMemoryStores } from "../src/stores/in-memory.js";
import { authenticateTestToken, closedAfterEach, ScriptedExecutor, waitFor } from "./support/handler-harness.js";

/**
 * The HTTP+JSON binding over both adapters: a real node:http server (the shortest road) and the fetch
 * adapter in process. Each case runs on both, so the two adapters answer it alike.
 */

type Fetch = (path: string, init?: RequestInit & { token?: string | null }) => Promise<Response>;
interface Bed {
  fetch: Fetch;
  handler: A2AHandler;
  executor: ScriptedExecutor;
}

const closing = closedAfterEach();

function handlerFor(executor: ScriptedExecutor, rateLimit?: number): A2AHandler {
  const handler = createA2AHandler({
    stores: createInMemoryStores(),
    executor,
    authenticate: authenticateTestToken,
    logger: { info() {}, warn() {}, error() {} },
    basePath: "/api/v1/a2a",
    ...(rateLimit === undefined ? {} : { rateLimit: { requestsPerSecond: rateLimit, burst: rateLimit } }),
  });
  closing.push(() => handler.close({ graceMs: 0 }));
  return handler;
}

function withAuth(init: RequestInit & { token?: string | null } = {}): RequestInit {
  const { token, ...rest } = init;
  const headers = new Headers(rest.headers);
  const t = token === undefined ? "partner-a" : token;
  if (t) headers.set("authorization", `Bearer ${t}`);
  if (rest.body !== undefined) headers.set("content-type", "application/json");
  return { ...rest, headers };
}

async function nodeBed(executor = new ScriptedExecutor(), rateLimit?: number): Promise<Bed> {
  const handler = handlerFor(executor, rateLimit);
  const node = toNodeHandler(handler);
  const server = createServer((req, res) => void node(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closing.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/a2a`;
  return { handler, executor, fetch: (path, init) => fetch(`${base}${path}`, withAuth(init)) };
}

async function fetchBed(executor = new ScriptedExecutor(), rateLimit?: number): Promise<Bed> {
  const handler = handlerFor(executor, rateLimit);
  const app = toFetchHandler(handler);
  return {
    handler,
    executor,
    fetch: (path, init) => app(new Request(`http://test/api/v1/a2a${path}`, withAuth(init))),
  };
}

function start(text = "restock aisle 5", messageId = crypto.randomUUID(), storeId = "store-001") {
  return JSON.stringify({ message: { messageId, role: "ROLE_USER", parts: [{ text }] }, metadata: { storeId } });
}

const frames = (res: Response, limit?: number) => sseFrames(decodeSseStream, res, limit);

describe.each([
  ["node adapter", nodeBed],
  ["fetch adapter", fetchBed],
])("HTTP+JSON over the %s", (_name, bed) => {
  it("streams a task as bare StreamResponse frames with ids, then GetTask, ListTasks and subscribe read it", async () => {
    const b = await bed();
    const res = await b.fetch("/message:stream", { method: "POST", body: start() });
    expect(res.status).toBe(200);
    const got = await frames(res);
    expect(got.map((f) => f.event)).toEqual(["task", "update", "update", "finished", "final"]);
    expect(got.map((f) => f.id)).toEqual(["1", "2", "3", "4", "5"]);
    for (const f of got) {
      expect(f.data).not.toHaveProperty("jsonrpc");
      StreamResponseV1.parse(f.data);
    }
    const task = TaskV1.parse(got[0]?.data.task);
    expect(got[3]?.data.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");

    const polled = await b.fetch(`/tasks/${task.id}?historyLength=0`);
    expect(polled.status).toBe(200);
    const body = TaskV1.parse(await polled.json());
    expect(body).toMatchObject({ id: task.id, status: { state: "TASK_STATE_COMPLETED" } });
    expect(body.history ?? []).toEqual([]);

    const listed = await b.fetch("/tasks?status=TASK_STATE_COMPLETED&pageSize=10&includeArtifacts=true");
    expect(listed.status).toBe(200);
    const page = await listed.json();
    expect(page).toMatchObject({ pageSize: 1, totalSize: 1, nextPageToken: "" });
    expect(page.tasks[0].id).toBe(task.id);
    expect(page.tasks[0].artifacts).toBeDefined();

    // v1.0 refuses to subscribe to an ended task, on this binding too.
    const ended = await b.fetch(`/tasks/${task.id}:subscribe`, { method: "POST" });
    expect(ended.status).toBe(400);
    expect(await ended.json()).toMatchObject({
      error: { code: 400, status: "FAILED_PRECONDITION", details: [{ reason: "UNSUPPORTED_OPERATION" }] },
    });
  });

  it("resumes a stream after Last-Event-ID, cancels, and answers a retried start with its task", async () => {
    const b = await bed(new ScriptedExecutor(undefined, undefined, true));
    const messageId = crypto.randomUUID();
    const first = await frames(await b.fetch("/message:stream", { method: "POST", body: start("x", messageId) }), 1);
    const taskId = first[0]?.data.task.id as string;
    await b.executor.release();
    await waitFor(async () => (await (await b.fetch(`/tasks/${taskId}`)).json()).status.message !== undefined);

    // The same start again (same messageId) is a retry: the same task, never a second dispatch.
    const retry = await frames(
      await b.fetch("/message:stream", {
        method: "POST",
        body: start("x", messageId),
        headers: { "last-event-id": "1" },
      }),
      2,
    );
    expect(retry.map((f) => [f.id, f.event])).toEqual([
      ["1", "task"],
      ["2", "update"],
    ]);
    expect(retry[0]?.data.task.id).toBe(taskId);
    expect(b.executor.dispatched).toBe(1);

    const resumed = await frames(
      await b.fetch(`/tasks/${taskId}:subscribe`, { method: "GET", headers: { "last-event-id": "1" } }),
      2,
    );
    expect(resumed[1]).toMatchObject({ id: "2", event: "update" });

    const canceled = await b.fetch(`/tasks/${taskId}:cancel`, { method: "POST" });
    expect(canceled.status).toBe(200);
    expect((await canceled.json()).status.state).toBe("TASK_STATE_CANCELED");
    const again = await b.fetch(`/tasks/${taskId}:cancel`, { method: "POST" });
    expect(again.status).toBe(400);
    expect((await again.json()).error.details[0]).toMatchObject({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "TASK_NOT_CANCELABLE",
      domain: "a2a-protocol.org",
    });
  });

  it("maps errors to HTTP statuses with a google.rpc.Status body", async () => {
    const b = await bed();
    const missing = await b.fetch(`/tasks/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({
      error: { code: 404, status: "NOT_FOUND", details: [{ reason: "TASK_NOT_FOUND" }] },
    });

    const foreign = await frames(await b.fetch("/message:stream", { method: "POST", body: start() }), 1);
    const other = await b.fetch(`/tasks/${foreign[0]?.data.task.id}`, { token: "partner-b" });
    expect(other.status).toBe(404);

    const send = await b.fetch("/message:send", { method: "POST", body: start() });
    expect(send.status).toBe(200);
    expect(TaskV1.parse((await send.json()).task).status.state).toBe("TASK_STATE_COMPLETED");

    const noStore = await b.fetch("/message:stream", { method: "POST", body: start("x", undefined, "nowhere") });
    expect(noStore.status).toBe(400);
    const invalid = (await noStore.json()).error;
    expect(invalid.status).toBe("INVALID_ARGUMENT");
    expect(invalid.details[1].fieldViolations[0].field).toBe("params.metadata.storeId");

    const badPage = await b.fetch("/tasks?pageSize=zero");
    expect(badPage.status).toBe(400);
    expect(JSON.stringify(await badPage.json())).toContain("params.pageSize");

    const notJson = await b.fetch("/message:stream", { method: "POST", body: "{nope" });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error.details[0].reason).toBe("PARSE_ERROR");

    const anonymous = await b.fetch("/tasks", { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect((await anonymous.json()).error.status).toBe("UNAUTHENTICATED");

    const wrongVerb = await b.fetch("/tasks", { method: "DELETE" });
    expect(wrongVerb.status).toBe(405);
    expect(wrongVerb.headers.get("allow")).toBe("GET");

    // The push-config routes reach their methods (push-config-clients.test.ts has them in full): an
    // unknown task is 404, a config without a url 400.
    for (const [path, method, status] of [
      ["/pushNotificationConfigs", "POST", 400],
      ["/pushNotificationConfigs", "GET", 404],
      ["/pushNotificationConfigs/c1", "GET", 404],
      ["/pushNotificationConfigs/c1", "DELETE", 404],
    ] as const) {
      const push = await b.fetch(`/tasks/t1${path}`, { method, ...(method === "POST" ? { body: "{}" } : {}) });
      expect(push.status, `${method} ${path}`).toBe(status);
      expect((await push.json()).error.details[0].reason).toBe(status === 404 ? "TASK_NOT_FOUND" : "INVALID_PARAMS");
    }
    const unrouted = await b.fetch(`/tasks/t1/elsewhere`);
    expect(unrouted.status).toBe(404);

    // The body limit holds on this binding too: 413, before the JSON is parsed.
    const huge = await b.fetch("/message:stream", { method: "POST", body: start("x".repeat(300 * 1024)) });
    expect(huge.status).toBe(413);
    expect((await huge.json()).error.code).toBe(413);

    const version = await b.fetch("/tasks", { headers: { "A2A-Version": "0.3" } });
    expect(version.status).toBe(400);
    expect((await version.json()).error.details[0].reason).toBe("VERSION_NOT_SUPPORTED");
  });

  it("rate-limits like JSON-RPC: 429 with Retry-After", async () => {
    const b = await bed(new ScriptedExecutor(), 1);
    expect((await b.fetch("/tasks")).status).toBe(200);
    const limited = await b.fetch("/tasks");
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("1");
    expect((await limited.json()).error.status).toBe("RESOURCE_EXHAUSTED");
  });

  it("leaves JSON-RPC where it was: POST to the endpoint, 405 for GET", async () => {
    const b = await bed();
    const rpc = await b.fetch("", {
      method: "POST",
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
    });
    expect(await rpc.json()).toMatchObject({ jsonrpc: "2.0", id: 1, result: { tasks: [] } });
    const get = await b.fetch("");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect(await get.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
  });
});

describe("HTTP+JSON under hostile input", () => {
  it("answers any verb, path, query and body under its routes without a 5xx, with JSON or a stream", async () => {
    const b = await fetchBed();
    const segment = fc.oneof(
      fc.constantFrom("tasks", "message:send", "message:stream", "pushNotificationConfigs", "%E0%A4%A", ":cancel"),
      fc.string({ maxLength: 12 }).map(encodeURIComponent),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH"),
        fc.array(segment, { minLength: 1, maxLength: 4 }),
        fc.constantFrom("", ":subscribe", ":cancel"),
        fc.dictionary(
          fc.constantFrom("historyLength", "pageSize", "status", "pageToken", "includeArtifacts"),
          fc.string(),
        ),
        fc.option(fc.oneof(fc.json(), fc.string()), { nil: undefined }),
        async (verb, segments, action, query, body) => {
          const search = new URLSearchParams(query).toString();
          const path = `/tasks/${segments.join("/")}${action}${search ? `?${search}` : ""}`;
          const withBody = verb !== "GET" && body !== undefined;
          const res = await b.fetch(path, { method: verb, ...(withBody ? { body } : {}) });
          expect(res.status, `${verb} ${path}`).toBeLessThan(500);
          if (res.headers.get("content-type")?.startsWith("text/event-stream")) await res.body?.cancel();
          else expect(typeof (await res.json())).toBe("object");
        },
      ),
      { numRuns: 150 },
    );
  });
});
