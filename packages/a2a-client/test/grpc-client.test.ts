// The typed client over A2A's gRPC binding, against a2a-core's real handler served by its gRPC server on
// a real port (in-memory stores, a scripted executor): the same events, errors, retries and lossless
// resume as over the HTTP bindings.
import { connect, createServer, type Socket } from "node:net";
import {
  type AuthOutcome,
  buildAgentCardV03,
  createA2AHandler,
  createInMemoryStores,
  type TaskExecutor,
} from "@a2a-partner/a2a-core";
import { type A2AGrpcServer, startA2AGrpcServer } from "@a2a-partner/a2a-core/grpc";
import { afterEach, describe, expect, it } from "vitest";
import { grpcTransport } from "../src/grpc.js";
import * as errors from "../src/index.js";
import { A2AClient, type A2AClientOptions, type TaskStreamEvent } from "../src/index.js";
import { collect, followToCompleted, StepExecutor } from "./support/step-executor.js";

const TOKENS: Record<string, AuthOutcome> = { a2a_p_a: { ok: true, workspaceId: "ws-a" } };

const closing: Array<() => Promise<unknown> | undefined> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function serve(executor: TaskExecutor = new StepExecutor()): Promise<A2AGrpcServer> {
  const handler = createA2AHandler({
    stores: createInMemoryStores(),
    executor,
    authenticate: async (headers) => {
      const token = headers.get("authorization")?.replace(/^Bearer /, "") ?? "";
      return TOKENS[token] ?? { ok: false, status: 401, message: "Missing or invalid token" };
    },
    recoveryIntervalMs: 0,
  });
  const server = await startA2AGrpcServer({ handler, host: "127.0.0.1" });
  closing.push(
    () => handler.close({ graceMs: 0 }),
    () => server.close({ graceMs: 100 }),
  );
  return server;
}

function client(address: string, options: Partial<A2AClientOptions> = {}): A2AClient {
  const c = new A2AClient({
    baseUrl: "http://127.0.0.1",
    grpcAddress: address,
    binding: "grpc",
    grpc: grpcTransport(),
    token: "a2a_p_a",
    sleep: async () => {},
    ...options,
  });
  closing.push(() => c.close());
  return c;
}

/** A TCP hop between client and server whose open connections the test can cut, like a network drop. */
async function cuttableProxy(port: number): Promise<{ address: string; cut(): void; connections(): number }> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const proxy = createServer((inbound) => {
    accepted++;
    const upstream = connect(port, "127.0.0.1");
    for (const socket of [inbound, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.on("close", () => sockets.delete(socket));
    }
    inbound.pipe(upstream).pipe(inbound);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  closing.push(() => new Promise((resolve) => proxy.close(() => resolve(undefined))));
  closing.push(() => {
    for (const socket of sockets) socket.destroy();
    return undefined;
  });
  const { port: proxyPort } = proxy.address() as { port: number };
  return {
    address: `127.0.0.1:${proxyPort}`,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    connections: () => accepted,
  };
}

describe("A2AClient over gRPC", () => {
  it("follows a task to completed; GetTask, ListTasks and CancelTask agree with the stream", async () => {
    const server = await serve();
    const c = client(`127.0.0.1:${server.port}`);
    expect(c.binding).toBe("grpc");
    const stream = await followToCompleted(c);
    const taskId = stream.taskId as string;
    const polled = await c.getTask(taskId);
    expect(polled).toMatchObject({ id: taskId, kind: "task", status: { state: "completed" } });
    expect(polled.history.at(-1)?.parts).toEqual([{ kind: "text", text: "Done" }]);
    expect((await c.getTask(taskId, { historyLength: 0 })).history).toEqual([]);

    const page = await c.listTasks({ status: "completed" });
    expect(page.tasks.map((t) => t.id)).toEqual([taskId]);
    expect(page.nextPageToken).toBe("");

    const error = await c.cancelTask(taskId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(errors.TaskNotCancelableError);
  });

  it("throws the typed errors of the HTTP bindings: unknown task, bad params, refused token", async () => {
    const server = await serve();
    const c = client(`127.0.0.1:${server.port}`);
    await expect(c.getTask("no-such-task")).rejects.toBeInstanceOf(errors.TaskNotFoundError);
    await expect(c.listTasks({ pageToken: "not-a-token" })).rejects.toBeInstanceOf(errors.InvalidParamsError);

    let retries = 0;
    const refused = client(`127.0.0.1:${server.port}`, { token: "wrong", onRetry: () => retries++ });
    const failure = await refused.getTask("any").catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(errors.AuthenticationError);
    expect((failure as errors.A2AHttpError).status).toBe(401);
    expect(retries).toBe(0);
  });

  it("reattaches after the connection is cut mid-task: every event exactly once, in order", async () => {
    const executor = new StepExecutor(6, 40);
    const server = await serve(executor);
    const proxy = await cuttableProxy(server.port);
    const resumes: string[] = [];
    const c = client(proxy.address, { onRetry: (info) => resumes.push(info.kind) });

    const stream = c.sendStreamingMessage({ text: "Restock aisle 7", storeId: "store-001" });
    const events: TaskStreamEvent[] = [];
    let cut = false;
    for await (const event of stream) {
      events.push(event);
      if (!cut && event.type === "update") {
        cut = true;
        proxy.cut();
      }
    }
    expect(resumes).toContain("resume");
    expect(proxy.connections()).toBeGreaterThan(1);
    expect(events.map((e) => Number(e.eventId))).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(events.at(-1)).toMatchObject({ type: "finished", state: "completed" });
    expect(executor.dispatched).toBe(1);
  });

  it("subscribes from a Last-Event-ID: only the later events", async () => {
    const server = await serve(new StepExecutor(4, 40));
    const c = client(`127.0.0.1:${server.port}`);
    const first = c.sendStreamingMessage({ text: "Restock aisle 2", storeId: "store-001" });
    for await (const event of first) if (event.type === "update") break;
    const replay = await collect(c.subscribeToTask(first.taskId as string, { lastEventId: 2 }));
    // Event 1 (the snapshot) is at or before the Last-Event-ID: the client does not deliver it again.
    expect(replay.map((e) => `${e.type}:${e.eventId}`)).toEqual(["update:3", "update:4", "update:5", "finished:6"]);
    // An ended task cannot be subscribed to (A2A v1.0): its last state is GetTask's.
    await expect(collect(c.subscribeToTask(first.taskId as string))).rejects.toBeInstanceOf(
      errors.UnsupportedOperationError,
    );
  });

  it("creates, reads, lists and deletes push configs", async () => {
    const server = await serve();
    const c = client(`127.0.0.1:${server.port}`);
    const stream = c.sendStreamingMessage({ text: "Restock aisle 3", storeId: "store-001" });
    await collect(stream);
    const taskId = stream.taskId as string;
    const created = await c.createTaskPushNotificationConfig(taskId, {
      id: "ops",
      url: "https://hooks.example.com/a2a",
    });
    expect(created).toMatchObject({ taskId, id: "ops", url: "https://hooks.example.com/a2a" });
    expect(await c.getTaskPushNotificationConfig(taskId, "ops")).toEqual(created);
    expect(await c.listTaskPushNotificationConfigs(taskId)).toEqual([created]);
    await c.deleteTaskPushNotificationConfig(taskId, "ops");
    expect(await c.listTaskPushNotificationConfigs(taskId)).toEqual([]);
  });

  it("takes the gRPC address from the agent card's GRPC interface", async () => {
    const server = await serve();
    const card = buildAgentCardV03({
      name: "Robots",
      description: "Store robots",
      endpointUrl: "http://127.0.0.1:1/api/v1/a2a",
      grpcUrl: `127.0.0.1:${server.port}`,
      version: "1.0.0",
      skills: [],
    });
    const c = client("", {
      grpcAddress: undefined,
      baseUrl: "http://127.0.0.1:1",
      fetch: async () => Response.json(card),
    });
    const events = await collect(c.sendStreamingMessage({ text: "Restock aisle 4", storeId: "store-001" }));
    expect(events.at(-1)).toMatchObject({ type: "finished", state: "completed" });
    expect(c.endpoint).toBe(`127.0.0.1:${server.port}`);
  });

  it("refuses binding grpc without the transport from the gRPC entry", () => {
    expect(() => new A2AClient({ baseUrl: "http://127.0.0.1", binding: "grpc" })).toThrow(/grpcTransport\(\)/);
  });
});
