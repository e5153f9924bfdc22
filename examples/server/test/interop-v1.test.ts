// The official A2A JS SDK (@a2a-js/sdk 1.3) with its default options, no compatibility layer: it reads
// the card (asking for A2A-Version: 1.0), picks the v1.0 JSON-RPC interface and speaks v1.0 on every call.
// docs/interop.md explains what works and what differs.
import { type StreamResponse, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import { TaskNotCancelableError, TaskNotFoundError, UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { bearerInterceptor, collect, listContextRequest, taskStart } from "@a2a-partner/test-support/a2a-sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { createTestDatabase, type TestDatabase } from "./support/backends.ts";
import { startForwarder } from "./support/forwarder.ts";
import { startTestServer, type TestServer } from "./support/test-server.ts";

const payloadCase = (event: StreamResponse | undefined) => event?.payload?.$case;
function taskOf(event: StreamResponse | undefined) {
  if (event?.payload?.$case !== "task") throw new Error(`expected a task event, got ${event?.payload?.$case}`);
  return event.payload.value;
}
const stateOf = (event: StreamResponse | undefined) => {
  const payload = event?.payload;
  if (payload?.$case === "task" || payload?.$case === "statusUpdate") return payload.value.status?.state;
  return undefined;
};

describe("the official @a2a-js/sdk client with default options (A2A v1.0) against the reference server", () => {
  let database: TestDatabase;
  let server: TestServer;
  let front: Awaited<ReturnType<typeof startForwarder>>;
  let token: string;
  /** Every request the SDK sent: URL, JSON-RPC method, A2A-Version header. */
  let wire: Array<{ url: string; method: string | undefined; version: string | null }> = [];
  const realFetch = globalThis.fetch;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    front = await startForwarder();
    // Slow enough that a task is still running while the test polls, lists and reattaches to it.
    server = await startTestServer(database.db, { publicUrl: front.url, robotStepMs: 250 });
    front.setTarget(Number(new URL(server.url).port));
    token = server.seeded.partnerToken;
    // The default options use the global fetch: watch it rather than hand the SDK another one.
    vi.stubGlobal("fetch", async (input: string | URL | Request, init?: RequestInit) => {
      let method: string | undefined;
      try {
        method = (JSON.parse(String(init?.body)) as { method?: string }).method;
      } catch {
        // the card (GET)
      }
      wire.push({ url: String(input), method, version: new Headers(init?.headers).get("a2a-version") });
      return realFetch(input, init);
    });
  });
  beforeEach(() => {
    wire = [];
  });
  afterAll(async () => {
    vi.unstubAllGlobals();
    await server?.stop();
    await front?.close();
    await database?.drop();
  });

  /** ClientFactory's defaults; the only addition is the credential, through the SDK's interceptor seam. */
  async function client() {
    const bearer = bearerInterceptor(token);
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { clientConfig: { interceptors: [bearer] } }),
    );
    return factory.createFromUrl(front.url);
  }

  /** Starts a task and leaves after its first event (the task goes on without us); the task's id. */
  async function startAndLeave(sdk: Awaited<ReturnType<typeof client>>, text: string): Promise<string> {
    const leave = new AbortController();
    let id = "";
    try {
      for await (const event of sdk.sendMessageStream(taskStart(text), { signal: leave.signal })) {
        id = taskOf(event).id;
        leave.abort();
      }
    } catch (error) {
      expect((error as Error).name).toBe("AbortError");
    }
    expect(id).not.toBe("");
    return id;
  }

  it("discovers the card, picks the v1.0 interface and streams a task to its end", async () => {
    const sdk = await client();
    expect(sdk.protocolVersion).toBe("1.0");
    const events = await collect(sdk.sendMessageStream(taskStart("Restock aisle 5")));

    expect(wire[0]).toMatchObject({ url: `${front.url}/.well-known/agent-card.json`, version: "1.0" });
    expect(wire[1]).toMatchObject({ url: `${front.url}/api/v1/a2a`, method: "SendStreamingMessage", version: "1.0" });
    const task = taskOf(events[0]);
    expect(task.status?.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(task.metadata).toMatchObject({ storeId: "store-001" });
    expect(task.history[0]?.parts[0]?.content).toEqual({ $case: "text", value: "Restock aisle 5" });
    const cases = events.map(payloadCase);
    expect(cases).toContain("artifactUpdate");
    expect(cases.slice(-2)).toEqual(["statusUpdate", "task"]);
    const progress = events.filter((e) => payloadCase(e) === "statusUpdate").slice(0, -1);
    expect(progress.length).toBeGreaterThanOrEqual(3);
    for (const update of progress) expect(stateOf(update)).toBe(TaskState.TASK_STATE_WORKING);
    expect(stateOf(events.at(-2))).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(taskOf(events.at(-1))).toMatchObject({ id: task.id, status: { state: TaskState.TASK_STATE_COMPLETED } });
  });

  it("runs getTask, listTasks, cancelTask (running, then finished), resubscribeTask and an unknown id", async () => {
    const sdk = await client();
    const id = await startAndLeave(sdk, "Count inventory in aisle 7");

    const polled = await sdk.getTask({ tenant: "", id, historyLength: undefined });
    expect(polled).toMatchObject({ id, status: { state: TaskState.TASK_STATE_WORKING } });

    const listed = await sdk.listTasks(listContextRequest(polled.contextId));
    expect(listed.tasks.map((task) => task.id)).toEqual([id]);
    expect(listed).toMatchObject({ totalSize: 1, pageSize: 1, nextPageToken: "" });

    // Reattach while it runs: the current task first, then live events to the end.
    const reattached = await collect(sdk.resubscribeTask({ tenant: "", id }));
    expect(payloadCase(reattached[0])).toBe("task");
    expect(stateOf(reattached.at(-2))).toBe(TaskState.TASK_STATE_COMPLETED);

    // A second task, canceled while it runs; canceling it again is refused.
    const running = await startAndLeave(sdk, "Clean the spill in aisle 3");
    const canceled = await sdk.cancelTask({ tenant: "", id: running, metadata: undefined });
    expect(canceled).toMatchObject({ id: running, status: { state: TaskState.TASK_STATE_CANCELED } });
    await expect(sdk.cancelTask({ tenant: "", id: running, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
    await expect(sdk.cancelTask({ tenant: "", id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );

    // A2A v1.0: subscribing to an ended task is refused with UnsupportedOperationError.
    await expect(collect(sdk.resubscribeTask({ tenant: "", id: running }))).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
    await expect(sdk.getTask({ tenant: "", id: crypto.randomUUID(), historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );

    expect(new Set(wire.map((r) => r.version))).toEqual(new Set(["1.0"]));
    expect(wire.map((r) => r.method).filter(Boolean)).toEqual([
      "SendStreamingMessage",
      "GetTask",
      "ListTasks",
      "SubscribeToTask",
      "SendStreamingMessage",
      "CancelTask",
      "CancelTask",
      "CancelTask",
      "SubscribeToTask",
      "GetTask",
    ]);
  });
});
