import { describe, expect, it } from "vitest";
import { StreamResponseV1 } from "../src/protocol/schemas/a2a-v1.js";
import { harnessPerTest, readFrames, ScriptedExecutor } from "./support/handler-harness.js";

/**
 * What a generic A2A client (one that knows neither our storeId nor to send A2A-Version) needs to start
 * a task: the workspace's default Environment, and a v1.0 body read as v1.0 without the header.
 */

/** A workspace "ws-a" whose default Environment is store-007; ws-b names none. */
class DefaultingExecutor extends ScriptedExecutor {
  async defaultEnvironment(workspaceId: string): Promise<string | undefined> {
    return workspaceId === "ws-a" ? "store-007" : undefined;
  }
}

const harness = harnessPerTest();

describe("generic clients", () => {
  it("starts a task without storeId in the workspace's default Environment", async () => {
    const h = harness(new DefaultingExecutor());
    const messageId = crypto.randomUUID();
    const params = { message: { messageId, role: "user", parts: [{ kind: "text", text: "restock" }] } };
    const res = await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params });
    const frames = await readFrames(res);
    expect(frames[0]?.result.metadata).toMatchObject({ storeId: "store-007" });
    expect(h.executor.contexts[0]?.task.metadata.storeId).toBe("store-007");
    expect(frames.at(-1)?.event).toBe("final");

    // The same start again is a retry of that task, not a second dispatch.
    const again = await readFrames(await h.call({ jsonrpc: "2.0", id: 2, method: "SendStreamingMessage", params }), 1);
    expect(again[0]?.result.id).toBe(frames[0]?.result.id);
    expect(h.executor.dispatched).toBe(1);
  });

  it("refuses a start without storeId where the workspace names no default, naming the field", async () => {
    const h = harness(new DefaultingExecutor());
    const params = { message: { role: "user", parts: [{ kind: "text", text: "restock" }] } };
    const { body } = await h.rpc("SendStreamingMessage", params, "partner-b");
    expect(body.error).toMatchObject({ code: -32602, data: { field: "params.metadata.storeId" } });
    expect(body.error.message).toContain("no default Environment");
    // An executor without defaults refuses the same way.
    const plain = harness();
    expect((await plain.rpc("SendStreamingMessage", params)).body.error.data.field).toBe("params.metadata.storeId");
    expect(plain.executor.dispatched).toBe(0);
  });

  it("answers the push-config methods with -32003 when push notifications are off", async () => {
    const h = harness(undefined, { push: false });
    // v0.3 params (a v1.0 shape would be answered in v1.0's error shape: push-config-methods.test.ts).
    for (const [method, params] of [
      ["CreateTaskPushNotificationConfig", { taskId: "t1", pushNotificationConfig: { url: "https://r.example/" } }],
      ["tasks/pushNotificationConfig/get", { id: "t1" }],
    ] as const) {
      const { body } = await h.rpc(method, params);
      expect(body.error).toMatchObject({ code: -32003, data: { method } });
    }
  });

  it("reads a header-less body that can only be v1.0 as v1.0, and keeps v0.3 otherwise", async () => {
    const h = harness();
    const v1 = { message: { role: "ROLE_USER", parts: [{ text: "restock" }] }, metadata: { storeId: "store-001" } };
    const frames = await readFrames(
      await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: v1 }),
    );
    for (const frame of frames) StreamResponseV1.parse(frame.result);
    expect(frames[0]?.result.task.status.state).toBe("TASK_STATE_WORKING");

    // Its errors come back in v1.0 terms too (ErrorInfo details).
    const bad = { message: { role: "ROLE_USER", parts: [{ text: "x" }] }, metadata: { storeId: "nowhere" } };
    const refused = await h.rpc("SendStreamingMessage", bad);
    expect(refused.body.error.data[0]).toMatchObject({ reason: "INVALID_PARAMS" });

    const v03 = { message: { role: "user", parts: [{ kind: "text", text: "x" }] }, metadata: { storeId: "store-001" } };
    const old = await readFrames(
      await h.call({ jsonrpc: "2.0", id: 2, method: "SendStreamingMessage", params: v03 }),
      1,
    );
    expect(old[0]?.result).toMatchObject({ kind: "task", status: { state: "working" } });

    const listed = await h.rpc("ListTasks", { status: "TASK_STATE_WORKING" });
    expect(
      listed.body.result.tasks.every((t: { status: { state: string } }) => t.status.state === "TASK_STATE_WORKING"),
    ).toBe(true);
  });
});
