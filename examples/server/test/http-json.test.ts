// The HTTP+JSON binding of the reference server, black-box on both stores: raw HTTP for the wire rules,
// then the official @a2a-js/sdk client allowed only its REST transport (RestTransportFactory), which
// discovers the binding from the card. docs/interop.md, "The HTTP+JSON binding".
import { type StreamResponse, TaskState } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, RestTransportFactory } from "@a2a-js/sdk/client";
import { TaskNotCancelableError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { decodeSseStream } from "@a2a-partner/a2a-core";
import { bearerInterceptor, listContextRequest, taskStart } from "@a2a-partner/test-support/a2a-sdk";
import { sseFrames } from "@a2a-partner/test-support/sse-frames";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setDefaultEnvironment } from "../src/admin/workspace-operations.ts";
import { type Backend, createTestDatabase, postgresAvailable, type TestDatabase } from "./support/backends.ts";
import { startForwarder } from "./support/forwarder.ts";
import { startTestServer, type TestServer } from "./support/test-server.ts";

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

const framesOf = (res: Response, limit?: number) => sseFrames(decodeSseStream, res, limit);

describe.each(backends)("HTTP+JSON on the reference server (%s)", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let front: Awaited<ReturnType<typeof startForwarder>>;
  let token: string;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    front = await startForwarder();
    server = await startTestServer(database.db, { publicUrl: front.url, robotStepMs: 150 });
    front.setTarget(Number(new URL(server.url).port));
    token = server.seeded.partnerToken;
  });
  afterAll(async () => {
    await server?.stop();
    await front?.close();
    await database?.drop();
  });

  const rest = (path: string, init: RequestInit = {}, bearer: string | null = token) =>
    fetch(`${front.url}/api/v1/a2a${path}`, {
      ...init,
      headers: {
        ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
        ...(init.body ? { "content-type": "application/json" } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  const start = (text: string, messageId = crypto.randomUUID()) =>
    JSON.stringify({
      message: { messageId, role: "ROLE_USER", parts: [{ text }] },
      metadata: { storeId: "store-001" },
    });

  it("lists the binding in the v1.0 card beside JSON-RPC", async () => {
    const card = await (
      await fetch(`${front.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })
    ).json();
    expect(card.supportedInterfaces).toContainEqual({
      url: `${front.url}/api/v1/a2a`,
      protocolBinding: "HTTP+JSON",
      protocolVersion: "1.0",
    });
    expect(card.supportedInterfaces[0].protocolBinding).toBe("JSONRPC");
    // Tools given only the base URL join the routes to the root (the conformance kit): answered there too.
    const atRoot = await fetch(`${front.url}/tasks?pageSize=1`, { headers: { authorization: `Bearer ${token}` } });
    expect(atRoot.status).toBe(200);
    expect(await atRoot.json()).toHaveProperty("tasks");
    expect((await fetch(`${front.url}/no-such-page`)).status).toBe(404);
  });

  it("streams, resumes after Last-Event-ID, polls, lists and answers errors with google.rpc.Status", async () => {
    const messageId = crypto.randomUUID();
    const first = await framesOf(
      await rest("/message:stream", { method: "POST", body: start("Restock aisle 5", messageId) }),
      2,
    );
    const taskId = first[0]?.data.task.id as string;
    expect(first[0]?.data.task.metadata).toMatchObject({ storeId: "store-001" });

    // A retry of the start (same messageId) after event 1 resumes the same task; the rest arrives once.
    const rest2 = await framesOf(
      await rest("/message:stream", {
        method: "POST",
        body: start("Restock aisle 5", messageId),
        headers: { "last-event-id": "1" },
      }),
    );
    expect(rest2[0]?.data.task.id).toBe(taskId);
    const ids = rest2.map((f) => Number(f.id));
    expect(ids.slice(1)).toEqual(ids.slice(1).map((_, i) => i + 2));
    expect(rest2.at(-2)?.data.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");

    const polled = await rest(`/tasks/${taskId}?historyLength=1`);
    expect(polled.status).toBe(200);
    expect(await polled.json()).toMatchObject({ id: taskId, status: { state: "TASK_STATE_COMPLETED" } });

    const page = await (await rest("/tasks?pageSize=1&status=TASK_STATE_COMPLETED")).json();
    expect(page.tasks.map((t: { id: string }) => t.id)).toEqual([taskId]);

    const missing = await rest(`/tasks/${crypto.randomUUID()}`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatchObject({
      code: 404,
      status: "NOT_FOUND",
      details: [{ reason: "TASK_NOT_FOUND" }],
    });
    // Another workspace's task is not found either: the same workspace scoping as JSON-RPC.
    expect((await rest(`/tasks/${taskId}`, {}, server.otherPartnerToken)).status).toBe(404);
    const anonymous = await rest("/tasks", {}, null);
    expect(anonymous.status).toBe(401);
    expect((await anonymous.json()).error.status).toBe("UNAUTHENTICATED");
  });

  it("starts a generic client's task (no storeId, no A2A-Version) in the workspace's default Environment", async () => {
    const noStore = (text: string) => ({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
    });
    // No default yet: refused, naming the field, on both bindings.
    const refused = await rest("/message:stream", { method: "POST", body: JSON.stringify(noStore("Restock aisle 2")) });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain("params.metadata.storeId");

    await setDefaultEnvironment(database.db, { workspace: "demo", storeId: "store-001" });
    const viaRest = await framesOf(
      await rest("/message:stream", { method: "POST", body: JSON.stringify(noStore("Restock aisle 3")) }),
      1,
    );
    expect(viaRest[0]?.data.task.metadata).toMatchObject({ storeId: "store-001" });
    // JSON-RPC without the header: the body can only be v1.0, so it is read (and answered) as v1.0.
    const viaRpc = await framesOf(
      await fetch(`${front.url}/api/v1/a2a`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "SendStreamingMessage",
          params: noStore("Restock aisle 4"),
        }),
      }),
      1,
    );
    expect(viaRpc[0]?.data.result.task).toMatchObject({
      status: { state: "TASK_STATE_WORKING" },
      metadata: { storeId: "store-001" },
    });
  });

  it("serves the official SDK's REST transport: stream, getTask, listTasks, cancelTask, resubscribe", async () => {
    // Options built without the defaults: `ClientFactoryOptions.createFrom(default, …)` merges the default
    // JSON-RPC transport back in, and the card lists JSON-RPC first, so that client would never use REST.
    const factory = new ClientFactory({
      transports: [new RestTransportFactory()],
      clientConfig: { interceptors: [bearerInterceptor(token)] },
    });
    const sdk = await factory.createFromUrl(front.url);
    expect(sdk.transport.protocolName).toBe("HTTP+JSON");
    const merged = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new RestTransportFactory()] }),
    );
    expect((await merged.createFromUrl(front.url)).transport.protocolName).toBe("JSONRPC");
    // The task must still be running when it is canceled: only its first event, a resubscribe, then the
    // cancel (read later, as before, it had ended on a loaded host).
    const events: StreamResponse[] = [];
    for await (const event of sdk.sendMessageStream(taskStart("Count inventory in aisle 7"))) {
      events.push(event);
      break;
    }
    const first = events[0]?.payload;
    if (first?.$case !== "task") throw new Error(`expected a task, got ${first?.$case}`);
    const id = first.value.id;

    const resubscribed: StreamResponse[] = [];
    for await (const event of sdk.resubscribeTask({ tenant: "", id })) {
      resubscribed.push(event);
      break;
    }
    expect(resubscribed[0]?.payload?.$case).toBe("task");

    const canceled = await sdk.cancelTask({ tenant: "", id, metadata: undefined });
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    expect(await sdk.getTask({ tenant: "", id, historyLength: undefined })).toMatchObject({ id });
    const listed = await sdk.listTasks(listContextRequest(first.value.contextId));
    expect(listed.tasks.map((t) => t.id)).toEqual([id]);
    await expect(sdk.cancelTask({ tenant: "", id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
    await expect(sdk.getTask({ tenant: "", id: crypto.randomUUID(), historyLength: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });
});
