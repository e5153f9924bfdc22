import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import { credentials, type ServiceError, status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { EVENT_SEQ_KEY, startA2AGrpcServer } from "../src/grpc.js";
import { type A2AHandler, createA2AHandler } from "../src/index.js";
import { createInMemoryStores } from "../src/stores/in-memory.js";
import { A2AGrpcTestClient, errorInfoOf } from "./support/grpc-client.js";
import { authenticateTestToken, ScriptedExecutor, waitFor } from "./support/handler-harness.js";

/** The gRPC binding over a real port with grpc-js's own client, on the in-memory stores. */

const closing: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

async function bed(
  executor = new ScriptedExecutor(),
  options: {
    push?: boolean;
    maxStreamBacklogBytes?: number;
    rateLimit?: number;
    maxOpenStreamsPerCaller?: number;
  } = {},
) {
  const handler: A2AHandler = createA2AHandler({
    stores: createInMemoryStores(),
    executor,
    authenticate: authenticateTestToken,
    logger: { info() {}, warn() {}, error: console.error },
    extendedAgentCard: (workspaceId) => ({
      name: `Agent for ${workspaceId}`,
      description: "Everything a partner may do",
      endpointUrl: "https://agent.example.com/a2a",
      version: "1.0.0",
      skills: [{ id: "restock", name: "Restock", description: "Restocks an aisle", tags: ["retail"] }],
    }),
    ...(options.push === false ? { push: false as const } : {}),
    ...(options.rateLimit === undefined ? {} : { rateLimit: { requestsPerSecond: options.rateLimit, burst: 1 } }),
    ...(options.maxOpenStreamsPerCaller === undefined
      ? {}
      : { maxOpenStreamsPerCaller: options.maxOpenStreamsPerCaller }),
    ...(options.maxStreamBacklogBytes === undefined ? {} : { maxStreamBacklogBytes: options.maxStreamBacklogBytes }),
  });
  const server = await startA2AGrpcServer({ handler, host: "127.0.0.1" });
  const client = new A2AGrpcTestClient(server.port);
  closing.push(
    () => handler.close({ graceMs: 0 }),
    () => server.close({ graceMs: 100 }),
    () => client.close(),
  );
  return { handler, server, client, executor };
}

function start(text = "restock aisle 5", messageId: string = crypto.randomUUID()) {
  return { message: { messageId, role: "ROLE_USER", parts: [{ text }] }, metadata: { storeId: "store-001" } };
}

async function failure(promise: Promise<unknown>): Promise<ServiceError> {
  return promise.then(
    () => {
      throw new Error("the call succeeded");
    },
    (error: ServiceError) => error,
  );
}

async function collect(messages: AsyncIterable<LooseJson>) {
  const out: LooseJson[] = [];
  for await (const message of messages) out.push(message);
  return out;
}

const seqOf = (message: LooseJson) => {
  const payload = message.task ?? message.message ?? message.statusUpdate ?? message.artifactUpdate;
  return payload.metadata?.[EVENT_SEQ_KEY] as number;
};

describe("the gRPC binding", () => {
  it("SendMessage, GetTask, ListTasks and CancelTask answer their messages", async () => {
    const { client } = await bed(new ScriptedExecutor(undefined, undefined, true));
    const sent = await client.unary("SendMessage", { ...start(), configuration: { returnImmediately: true } });
    const id = sent.task.id as string;
    expect(sent.task.status.state).toMatch(/^TASK_STATE_/);
    const got = await client.unary("GetTask", { id, historyLength: 1 });
    expect(got.id).toBe(id);
    const listed = await client.unary("ListTasks", { pageSize: 10 });
    expect(listed.tasks.map((task: LooseJson) => task.id)).toContain(id);
    const canceled = await client.unary("CancelTask", { id });
    expect(canceled.status.state).toBe("TASK_STATE_CANCELED");
  });

  it("SendStreamingMessage streams the task to its end, each message with its event sequence number", async () => {
    const { client } = await bed();
    const { messages } = client.stream("SendStreamingMessage", start());
    const received = await collect(messages);
    expect(received[0].task).toBeDefined();
    expect(received.at(-1).statusUpdate?.status?.state ?? received.at(-1).task?.status?.state).toBe(
      "TASK_STATE_COMPLETED",
    );
    const seqs = received.map(seqOf);
    expect(seqs.every((seq) => Number.isInteger(seq))).toBe(true);
  });

  it("errors are gRPC statuses with an ErrorInfo of domain a2a-protocol.org", async () => {
    const { client } = await bed(undefined, { push: false });
    const missing = await failure(client.unary("GetTask", { id: "no-such-task" }));
    expect(missing.code).toBe(status.NOT_FOUND);
    expect(errorInfoOf(missing)).toMatchObject({ reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" });
    const version = await failure(client.unary("GetTask", { id: "x" }, { metadata: { "a2a-version": "0.3" } }));
    expect(version.code).toBe(status.FAILED_PRECONDITION);
    expect(errorInfoOf(version)?.reason).toBe("VERSION_NOT_SUPPORTED");
    const push = await failure(client.unary("GetTaskPushNotificationConfig", { taskId: "t", id: "c" }));
    expect(push.code).toBe(status.FAILED_PRECONDITION);
    expect(errorInfoOf(push)?.reason).toBe("PUSH_NOTIFICATION_NOT_SUPPORTED");
    const invalid = await failure(client.unary("SendMessage", { message: { messageId: "m", role: "ROLE_USER" } }));
    expect(invalid.code).toBe(status.INVALID_ARGUMENT);
  });

  it("refuses a call without a good credential (UNAUTHENTICATED) and answers the rest", async () => {
    const { client } = await bed();
    const anonymous = await failure(client.unary("GetTask", { id: "x" }, { token: null }));
    expect(anonymous.code).toBe(status.UNAUTHENTICATED);
    const bad = await failure(client.unary("GetTask", { id: "x" }, { token: "nope" }));
    expect(bad.code).toBe(status.UNAUTHENTICATED);
    const stream = client.stream("SendStreamingMessage", start(), { token: null });
    const refused = await collect(stream.messages).then(
      () => undefined,
      (error: ServiceError) => error,
    );
    expect(refused?.code).toBe(status.UNAUTHENTICATED);
  });

  it("keeps workspaces apart: another workspace's task is not found", async () => {
    const { client } = await bed();
    const sent = await client.unary("SendMessage", { ...start(), configuration: { returnImmediately: true } });
    const other = await failure(client.unary("GetTask", { id: sent.task.id }, { token: "partner-b" }));
    expect(other.code).toBe(status.NOT_FOUND);
  });

  it("answers a malformed message INVALID_ARGUMENT and keeps serving", async () => {
    const { client } = await bed();
    const garbage = await failure(client.unary("GetTask", {}, { raw: Buffer.from([0x0a, 0xff, 0xff, 0xff]) }));
    expect(garbage.code).toBe(status.INVALID_ARGUMENT);
    expect(errorInfoOf(garbage)?.reason).toBe("INVALID_REQUEST");
    const missing = await failure(client.unary("GetTask", { id: "still-serving" }));
    expect(missing.code).toBe(status.NOT_FOUND);
  });

  it("SubscribeToTask resumes after last-event-id: no event lost, none twice", async () => {
    const steps = [1, 2, 3, 4].map((step) => ({
      kind: "status" as const,
      message: `step ${step}`,
      metadata: { step },
    }));
    const executor = new ScriptedExecutor(steps, undefined, true);
    const { client } = await bed(executor);
    const first = client.stream("SendStreamingMessage", start());
    const iterator = first.messages[Symbol.asyncIterator]();
    const taskFrame = (await iterator.next()).value;
    const id = taskFrame.task.id as string;
    await executor.release();
    const firstUpdate = (await iterator.next()).value;
    const lastSeen = seqOf(firstUpdate);
    // The caller goes away (its call cancelled): the task goes on.
    first.call.cancel();
    await executor.release();
    const resumed = client.stream("SubscribeToTask", { id }, { metadata: { "last-event-id": String(lastSeen) } });
    const resumedFrames = resumed.messages[Symbol.asyncIterator]();
    const resumedTask = (await resumedFrames.next()).value;
    for (let gate = 0; gate < 3; gate++) await executor.release();
    const rest = [resumedTask, ...(await collect({ [Symbol.asyncIterator]: () => resumedFrames }))];
    // After the task frame, every event after the last one seen, each once, in order: 3 (missed while
    // away), 4, 5, 6 (the last step) and the final status.
    const replayed = rest.slice(1).map(seqOf);
    expect(replayed).toEqual(replayed.map((_, index) => lastSeen + 1 + index));
    expect(replayed.length).toBeGreaterThanOrEqual(4);
    expect(seqOf(taskFrame)).toBeLessThan(lastSeen);
    expect(rest.at(-1).statusUpdate?.status?.state ?? rest.at(-1).task?.status?.state).toBe("TASK_STATE_COMPLETED");
  });

  it("a cancelled or expired call ends the stream, never the task", async () => {
    const executor = new ScriptedExecutor(undefined, undefined, true);
    const { client } = await bed(executor);
    const { call, messages } = client.stream("SendStreamingMessage", start());
    const iterator = messages[Symbol.asyncIterator]();
    const id = (await iterator.next()).value.task.id as string;
    call.cancel();
    const expired = client.stream("SubscribeToTask", { id }, { call: { deadline: Date.now() + 200 } });
    const ended = await collect(expired.messages).then(
      () => undefined,
      (error: ServiceError) => error,
    );
    expect(ended?.code).toBe(status.DEADLINE_EXCEEDED);
    await executor.release();
    await executor.release();
    await executor.release();
    await waitFor(async () => (await client.unary("GetTask", { id })).status.state === "TASK_STATE_COMPLETED");
  });

  it("GetExtendedAgentCard answers the card", async () => {
    const { client } = await bed();
    const card = await client.unary("GetExtendedAgentCard", {});
    expect(card.name).toBe("Agent for ws-a");
    expect(card.skills[0].id).toBe("restock");
  });

  it("bounds a reader that stops reading: the stream is dropped (UNAVAILABLE), not buffered without end", async () => {
    // 400 events of 8 KB: far more than the 16 KB backlog (and HTTP/2's windows) hold for a reader that reads none.
    const text = "x".repeat(8 * 1024);
    const steps = Array.from({ length: 400 }, (_, step) => ({
      kind: "status" as const,
      message: text,
      metadata: { step },
    }));
    const { client, handler } = await bed(new ScriptedExecutor(steps), { maxStreamBacklogBytes: 16 * 1024 });
    const { call } = client.stream("SendStreamingMessage", start());
    call.pause();
    const ended = new Promise<ServiceError | undefined>((resolve) => {
      call.on("error", resolve);
      call.on("end", () => resolve(undefined));
    });
    let taskId: string | undefined;
    call.once("data", () => {});
    // The task runs to its end while its stream's reader sleeps (read through the JSON-RPC binding).
    await waitFor(async () => {
      const response = await handler.fetch(
        new Request("http://test/", {
          method: "POST",
          headers: { authorization: "Bearer partner-a", "content-type": "application/json" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tasks/list", params: {} }),
        }),
      );
      const tasks = ((await response.json()) as { result: { tasks: Array<{ id: string; status: { state: string } }> } })
        .result.tasks;
      taskId = tasks[0]?.id;
      return tasks[0]?.status.state === "completed";
    }, 20_000);
    let received = 0;
    call.on("data", () => received++);
    call.resume();
    const error = await ended;
    expect(error?.code).toBe(status.UNAVAILABLE);
    expect(received).toBeLessThan(400);
    expect(taskId).toBeDefined();
  });

  it("shutdown ends open streams cleanly and the server stops once they have", async () => {
    const executor = new ScriptedExecutor(undefined, undefined, true);
    const { client, handler, server } = await bed(executor);
    const { messages } = client.stream("SendStreamingMessage", start());
    const iterator = messages[Symbol.asyncIterator]();
    expect((await iterator.next()).value.task).toBeDefined();
    const stopped = server.close({ graceMs: 5_000 });
    await handler.close({ graceMs: 0 });
    // The stream ends without an error: the client reattaches elsewhere with last-event-id.
    const rest = await collect({ [Symbol.asyncIterator]: () => iterator });
    expect(Array.isArray(rest)).toBe(true);
    await stopped;
  });

  it("serves TLS when given a key and certificate", async () => {
    const dir = mkdtempSync(join(tmpdir(), "a2a-grpc-tls-"));
    closing.push(() => rmSync(dir, { recursive: true, force: true }));
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=localhost",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    const cert = readFileSync(join(dir, "cert.pem"));
    const { handler } = await bed();
    const server = await startA2AGrpcServer({
      handler,
      host: "127.0.0.1",
      tls: { key: readFileSync(join(dir, "key.pem")), cert },
    });
    const client = new A2AGrpcTestClient(server.port, credentials.createSsl(cert));
    closing.push(
      () => client.close(),
      () => server.close({ graceMs: 100 }),
    );
    const missing = await failure(client.unary("GetTask", { id: "over-tls" }));
    expect(missing.code).toBe(status.NOT_FOUND);
    const plain = new A2AGrpcTestClient(server.port);
    closing.push(() => plain.close());
    const refused = await failure(plain.unary("GetTask", { id: "x" }, { call: { deadline: Date.now() + 2_000 } }));
    expect(refused.code).not.toBe(status.NOT_FOUND);
  });

  it("applies the caller's rate and stream cap: RESOURCE_EXHAUSTED with retry-after", async () => {
    const limited = await bed(undefined, { rateLimit: 0.01 });
    await failure(limited.client.unary("GetTask", { id: "first" }));
    const overRate = await failure(limited.client.unary("GetTask", { id: "second" }));
    expect(overRate.code).toBe(status.RESOURCE_EXHAUSTED);
    expect(Number(overRate.metadata.get("retry-after")[0])).toBeGreaterThan(0);

    const executor = new ScriptedExecutor(undefined, undefined, true);
    const capped = await bed(executor, { maxOpenStreamsPerCaller: 1 });
    const open = capped.client.stream("SendStreamingMessage", start());
    await open.messages[Symbol.asyncIterator]().next();
    const second = await collect(capped.client.stream("SendStreamingMessage", start()).messages).then(
      () => undefined,
      (error: ServiceError) => error,
    );
    expect(second?.code).toBe(status.RESOURCE_EXHAUSTED);
    open.call.cancel();
  });
});
