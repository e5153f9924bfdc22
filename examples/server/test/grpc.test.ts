// The gRPC binding on the reference server (GRPC_PORT), on PGlite and PostgreSQL: the card lists it as
// GRPC with host:port, and the official @a2a-js/sdk client restricted to its gRPC transport streams,
// polls, lists, cancels and resubscribes, resuming after the last event it saw with no loss or repeat.
import { createServer } from "node:net";
import { type StreamResponse, TaskState } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import { TaskNotCancelableError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import type { A2AGrpcServer } from "@a2a-partner/a2a-core/grpc";
import { startGrpcServerWith } from "@a2a-partner/a2a-core/grpc";
import type { GrpcSettings } from "@a2a-partner/a2a-core/node-runtime";
import { bearerInterceptor, collect, listContextRequest, taskStart } from "@a2a-partner/test-support/a2a-sdk";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Backend, createTestDatabase, postgresAvailable, type TestDatabase } from "./support/backends.ts";
import { startTestServer, type TestServer } from "./support/test-server.ts";

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];
const EVENT_SEQ_KEY = "a2a-partner/event-seq";

function payloadOf(event: StreamResponse | undefined) {
  return event?.payload?.value as { id?: string; metadata?: Record<string, unknown>; status?: { state?: TaskState } };
}
const seqOf = (event: StreamResponse | undefined) => payloadOf(event)?.metadata?.[EVENT_SEQ_KEY] as number;
const stateOf = (event: StreamResponse | undefined) => payloadOf(event)?.status?.state;

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe.each(backends)("the gRPC binding of the reference server (%s)", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let grpc: A2AGrpcServer;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    const port = await freePort();
    const settings: GrpcSettings = { port, host: "127.0.0.1", tls: undefined, publicAddress: `127.0.0.1:${port}` };
    // Slow enough that a task is still running while the test polls, lists and reattaches to it.
    server = await startTestServer(database.db, { robotStepMs: 150, grpc: settings });
    grpc = await startGrpcServerWith(server.app.handler, settings, pino({ level: "silent" }));
  });
  afterAll(async () => {
    const closed = grpc?.close({ graceMs: 1000 });
    await server?.stop();
    await closed;
    await database?.drop();
  });

  async function client(token = server.seeded.partnerToken) {
    // Its gRPC transport only: the card's JSON-RPC and HTTP+JSON interfaces are not for this client.
    const factory = new ClientFactory({
      transports: [new GrpcTransportFactory()],
      clientConfig: { interceptors: [bearerInterceptor(token)] },
    });
    return factory.createFromUrl(server.url);
  }

  it("lists the interface as GRPC with host:port on the v1.0 card", async () => {
    const response = await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
    const card = (await response.json()) as { supportedInterfaces: Array<{ url: string; protocolBinding: string }> };
    expect(card.supportedInterfaces.at(-1)).toEqual({
      url: `127.0.0.1:${grpc.port}`,
      protocolBinding: "GRPC",
      protocolVersion: "1.0",
    });
  });

  it("streams a task to its end over gRPC, every event numbered once and in order", async () => {
    const sdk = await client();
    const events = await collect(sdk.sendMessageStream(taskStart("Restock aisle 5")));
    expect(events[0]?.payload?.$case).toBe("task");
    expect(stateOf(events.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);
    const seqs = events.map(seqOf);
    expect(seqs.every(Number.isInteger)).toBe(true);
    // The closing `task` frame restates the final event; every other one is a new number.
    expect(seqs.slice(1, -1)).toEqual(seqs.slice(1, -1).map((_, index) => (seqs[1] ?? 0) + index));
  });

  it("polls, lists, cancels and resubscribes after the last event seen, losing and repeating none", async () => {
    const sdk = await client();
    const leave = new AbortController();
    const seen: StreamResponse[] = [];
    try {
      for await (const event of sdk.sendMessageStream(taskStart("Count inventory in aisle 7"), {
        signal: leave.signal,
      })) {
        seen.push(event);
        if (seen.length === 2) leave.abort();
      }
    } catch {
      // The SDK's gRPC transport reports the call it cancelled as an error: left on purpose.
    }
    const id = payloadOf(seen[0]).id as string;
    // Leaving ended the call, never the task.
    const polled = await sdk.getTask({ tenant: "", id, historyLength: undefined });
    expect(polled.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    const listed = await sdk.listTasks(listContextRequest(polled.contextId));
    expect(listed.tasks.map((task) => task.id)).toEqual([id]);

    const lastSeen = seqOf(seen[1]);
    const resumed = await collect(
      sdk.resubscribeTask({ tenant: "", id }, { serviceParameters: { "last-event-id": String(lastSeen) } }),
    );
    const replayed = resumed.slice(1, -1).map(seqOf);
    expect(replayed[0]).toBe(lastSeen + 1);
    expect(replayed).toEqual(replayed.map((_, index) => lastSeen + 1 + index));
    expect(stateOf(resumed.at(-1))).toBe(TaskState.TASK_STATE_COMPLETED);

    await expect(sdk.cancelTask({ tenant: "", id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
    await expect(sdk.getTask({ tenant: "", id: crypto.randomUUID(), historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });

  it("cancels a running task, and keeps another workspace's task out of reach", async () => {
    const sdk = await client();
    const leave = new AbortController();
    let id = "";
    try {
      for await (const event of sdk.sendMessageStream(taskStart("Clean the spill in aisle 3"), {
        signal: leave.signal,
      })) {
        id = payloadOf(event).id as string;
        leave.abort();
      }
    } catch {
      // left on purpose
    }
    const other = await client(server.otherPartnerToken);
    await expect(other.getTask({ tenant: "", id, historyLength: undefined })).rejects.toBeInstanceOf(TaskNotFoundError);
    const canceled = await sdk.cancelTask({ tenant: "", id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
  });
});
