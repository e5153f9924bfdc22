import { describe, expect, it } from "vitest";
import { type Harness, harnessPerTest, readFrames, startParams } from "./support/handler-harness.js";

/** A push config sent with a task start (v0.3 `pushNotificationConfig`, v1.0 `taskPushNotificationConfig`). */

const harness = harnessPerTest();
const V1 = { "A2A-Version": "1.0" };
const SECRETS = async () => ["whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"];

function startV03(config: unknown, messageId = crypto.randomUUID()) {
  return { ...startParams("restock aisle 5", messageId), configuration: { pushNotificationConfig: config } };
}

function startV1(config: unknown, messageId = crypto.randomUUID()) {
  return {
    message: { messageId, role: "ROLE_USER", parts: [{ text: "restock aisle 5" }] },
    metadata: { storeId: "store-001" },
    configuration: { acceptedOutputModes: [], returnImmediately: false, taskPushNotificationConfig: config },
  };
}

async function start(h: Harness, params: unknown, v1 = false) {
  return h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params }, v1 ? { headers: V1 } : {});
}

/** A refused start: its JSON-RPC error, and proof that nothing started or was stored. */
async function refused(h: Harness, params: unknown, v1 = false) {
  const res = await start(h, params, v1);
  const body = await res.json();
  expect(h.executor.dispatched).toBe(0);
  expect((await h.stores.tasks.list("ws-a", { pageSize: 10 })).tasks).toEqual([]);
  return body.error;
}

describe("a push config sent with a task start", () => {
  it("is stored with the task (v0.3), and the task event is its first delivery", async () => {
    const h = harness();
    const config = { url: "https://receiver.example.com/a2a", token: "notify-me" };
    const frames = await readFrames(await start(h, startV03(config)));
    const taskId = frames[0]?.result.id as string;
    const stored = await h.stores.push.configs.list("ws-a", taskId);
    expect(stored).toEqual([{ id: taskId, taskId, ...config, version: "0.3", createdAt: expect.any(String) }]);

    const [first] = await h.stores.push.deliveries.claim("test", 1, 60_000);
    expect(first?.event).toMatchObject({ taskId, seq: 1, event: "task" });
    expect(first?.config.url).toBe(config.url);
    // Every later event of the task has its delivery too, in order.
    const seqs = [first?.event.seq];
    for (let next = first && (await h.stores.push.deliveries.complete("test", first, 60_000)); next; ) {
      seqs.push(next.event.seq);
      next = await h.stores.push.deliveries.complete("test", next, 60_000);
    }
    expect(seqs).toEqual([1, 2, 3, 4]);
  });

  it("is stored in the v1.0 shape's terms (taskPushNotificationConfig), its id its own", async () => {
    const h = harness();
    const config = {
      taskId: "",
      id: "mine",
      url: "https://receiver.example.com/a2a",
      authentication: { scheme: "Bearer", credentials: "receiver-secret" },
    };
    const frames = await readFrames(await start(h, startV1(config), true));
    const taskId = frames[0]?.result.task.id as string;
    expect(await h.stores.push.configs.get("ws-a", taskId, "mine")).toMatchObject({
      taskId,
      url: config.url,
      authentication: { schemes: ["Bearer"], credentials: "receiver-secret" },
      version: "1.0",
    });
  });

  it("is ignored by a retried start: the task keeps the configs it started with", async () => {
    const h = harness();
    const messageId = crypto.randomUUID();
    const frames = await readFrames(await start(h, startV03({ url: "https://first.example/" }, messageId)));
    const taskId = frames[0]?.result.id as string;
    const again = await readFrames(await start(h, startV03({ url: "https://second.example/" }, messageId)), 1);
    expect(again[0]?.result.id).toBe(taskId);
    expect((await h.stores.push.configs.list("ws-a", taskId))?.map((c) => c.url)).toEqual(["https://first.example/"]);
    expect(h.executor.dispatched).toBe(1);
  });

  it("is checked like a created config before anything starts: -32602 naming the field in each dialect", async () => {
    const h = harness();
    const v03 = await refused(h, startV03({ url: "ftp://receiver.example.com/" }));
    expect(v03).toMatchObject({ code: -32602, data: { field: "params.configuration.pushNotificationConfig.url" } });
    const token = await refused(h, startV03({ url: "https://r.example/", token: "x".repeat(5000) }));
    expect(token.data.field).toBe("params.configuration.pushNotificationConfig.token");
    const v1 = await refused(h, startV1({ url: "https://user:pw@r.example/" }), true);
    expect(v1.code).toBe(-32602);
    expect(v1.data[1].fieldViolations[0].field).toBe("params.configuration.taskPushNotificationConfig.url");
  });

  it("is refused when the embedder's destination check refuses it, with the reason", async () => {
    const checkDestination = async (url: URL) => (url.hostname === "localhost" ? "names a loopback host" : undefined);
    const h = harness(undefined, { push: { signingSecrets: SECRETS, checkDestination } });
    const error = await refused(h, startV03({ url: "http://localhost:9/hook" }));
    expect(error).toMatchObject({ code: -32602, data: { field: "params.configuration.pushNotificationConfig.url" } });
    expect(error.message).toContain("names a loopback host");
  });

  it("is refused with -32003 when push is off, before anything is stored: no notification would ever come", async () => {
    const h = harness(undefined, { push: false });
    const v03 = await refused(h, startV03({ url: "https://receiver.example.com/" }));
    expect(v03).toMatchObject({ code: -32003, data: { field: "params.configuration.pushNotificationConfig" } });
    const v1 = await refused(h, startV1({ url: "https://receiver.example.com/" }), true);
    expect(v1.code).toBe(-32003);
    // A start without one runs as ever.
    const frames = await readFrames(await start(h, startParams()));
    expect(frames.at(-1)?.event).toBe("final");
  });
});
