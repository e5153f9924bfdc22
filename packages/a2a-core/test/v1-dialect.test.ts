import { describe, expect, it } from "vitest";
import { ErrorInfoV1, StreamResponseV1, TaskV1 } from "../src/protocol/schemas/a2a-v1.js";
import { TaskStatusUpdateEventV03, TaskV03 } from "../src/protocol/v0_3/schemas.js";
import { type Harness, harnessPerTest, readFrames, ScriptedExecutor, startParams } from "./support/handler-harness.js";

const harness = harnessPerTest();
const V1 = { "A2A-Version": "1.0" };

/** A v1.0 task start: ProtoJSON role, a part without `kind`. */
function startV1(text = "restock aisle 5", messageId = crypto.randomUUID(), storeId = "store-001") {
  return { message: { messageId, role: "ROLE_USER", parts: [{ text }] }, metadata: { storeId } };
}

async function rpc(h: Harness, method: string, params: unknown, headers: Record<string, string> = V1) {
  const res = await h.call({ jsonrpc: "2.0", id: "v1", method, params }, { headers });
  return { status: res.status, body: await res.json() };
}

describe("the v1.0 dialect (A2A-Version: 1.0)", () => {
  it("streams a task in v1.0 shapes under the contract's event names and ids", async () => {
    const h = harness();
    const res = await h.call(
      { jsonrpc: "2.0", id: 7, method: "SendStreamingMessage", params: startV1() },
      { headers: V1 },
    );
    const frames = await readFrames(res);
    expect(frames.map((f) => f.event)).toEqual(["task", "update", "update", "finished", "final"]);
    expect(frames.map((f) => f.id)).toEqual(["1", "2", "3", "4", "5"]);
    for (const frame of frames) StreamResponseV1.parse(frame.result);

    const task = TaskV1.parse(frames[0]?.result.task);
    expect(task.status.state).toBe("TASK_STATE_WORKING");
    expect(task.history?.[0]).toMatchObject({ role: "ROLE_USER", parts: [{ text: "restock aisle 5" }] });
    expect(JSON.stringify(frames[0]?.result)).not.toContain('"kind"');
    expect(frames[1]?.result.statusUpdate).toMatchObject({
      taskId: task.id,
      status: { state: "TASK_STATE_WORKING" },
      metadata: { robotId: "robot-1", step: 1 },
    });
    expect(frames[1]?.result.statusUpdate).not.toHaveProperty("final");
    expect(frames[3]?.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    expect(frames[4]?.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("refuses a messageId reused with another text in v1.0 too, with the field in its BadRequest", async () => {
    const h = harness();
    await readFrames(
      await h.call(
        { jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startV1("a", "k-1") },
        { headers: V1 },
      ),
    );
    const { body } = await rpc(h, "SendStreamingMessage", startV1("b", "k-1"));
    expect(body.error.code).toBe(-32602);
    const details = body.error.data as Array<Record<string, unknown>>;
    expect(JSON.stringify(details)).toContain("params.message.messageId");
    expect(h.executor.dispatched).toBe(1);
  });

  it("takes the version from the A2A-Version query parameter too", async () => {
    const h = harness();
    const res = await h.handler.fetch(
      new Request("http://test/api/v1/a2a?A2A-Version=1.0", {
        method: "POST",
        headers: { authorization: "Bearer partner-a", "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startV1() }),
      }),
    );
    expect((await readFrames(res, 1))[0]?.result.task.status.state).toBe("TASK_STATE_WORKING");
  });

  it("keeps the v0.3 dialect without a header or with 0.3, and refuses v1.0 payloads under 0.3", async () => {
    const h = harness();
    for (const headers of [{}, { "A2A-Version": "0.3" }]) {
      const frames = await readFrames(
        await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startParams() }, { headers }),
      );
      expect(TaskV03.parse(frames[0]?.result).status.state).toBe("working");
      expect(TaskStatusUpdateEventV03.parse(frames.at(-2)?.result).final).toBe(true);
    }
    // Without a header such a body is read as v1.0 (generic-clients.test.ts); an explicit 0.3 is kept.
    const refused = await rpc(h, "SendStreamingMessage", startV1(), { "A2A-Version": "0.3" });
    expect(refused.body.error).toMatchObject({ code: -32602, data: { field: "params.message.role" } });
  });

  it("answers an unsupported version with VersionNotSupportedError (-32009)", async () => {
    const h = harness();
    for (const version of ["2.0", "0.2", "banana"]) {
      const { body } = await rpc(h, "GetTask", { id: crypto.randomUUID() }, { "A2A-Version": version });
      expect(body).toMatchObject({ id: "v1", error: { code: -32009 } });
      expect(ErrorInfoV1.parse(body.error.data[0])).toMatchObject({
        reason: "VERSION_NOT_SUPPORTED",
        metadata: { supportedVersions: "0.3,1.0" },
      });
    }
    // Patch numbers do not count.
    expect((await rpc(h, "GetTask", { id: crypto.randomUUID() }, { "A2A-Version": "1.0.3" })).body.error.code).toBe(
      -32001,
    );
  });

  it("reports errors with google.rpc.ErrorInfo (and BadRequest for invalid params)", async () => {
    const h = harness();
    const missing = await rpc(h, "GetTask", { id: "nope" });
    expect(missing.body.error.code).toBe(-32001);
    expect(ErrorInfoV1.parse(missing.body.error.data[0])).toEqual({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "TASK_NOT_FOUND",
      domain: "a2a-protocol.org",
      metadata: { taskId: "nope" },
    });
    const invalid = await rpc(h, "SendStreamingMessage", startV1("restock", "m-1", "warehouse-9"));
    expect(invalid.body.error.code).toBe(-32602);
    expect(invalid.body.error.data).toEqual([
      expect.objectContaining({ reason: "INVALID_PARAMS", metadata: { field: "params.metadata.storeId" } }),
      {
        "@type": "type.googleapis.com/google.rpc.BadRequest",
        fieldViolations: [{ field: "params.metadata.storeId", description: expect.any(String) }],
      },
    ]);
    const badRole = await rpc(h, "SendStreamingMessage", {
      ...startV1(),
      message: { role: "user", parts: [{ text: "x" }] },
    });
    expect(badRole.body.error).toMatchObject({ code: -32602, message: expect.stringContaining("params.message.role") });
    const twoContents = await rpc(h, "SendStreamingMessage", {
      ...startV1(),
      message: { role: "ROLE_USER", parts: [{ text: "x", url: "https://example.com" }] },
    });
    expect(twoContents.body.error.message).toContain("params.message.parts.0");
    const unsupported = await rpc(h, "GetExtendedAgentCard", {});
    expect(unsupported.body.error.code).toBe(-32004);
    expect(unsupported.body.error.data[0].reason).toBe("UNSUPPORTED_OPERATION");
    const unauthenticated = await h.call(
      { jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } },
      { token: null, headers: V1 },
    );
    expect(unauthenticated.status).toBe(401);
    expect((await unauthenticated.json()).error.data[0].reason).toBe("INVALID_REQUEST");
  });

  it("GetTask and CancelTask answer v1.0 tasks; historyLength 0 leaves history out", async () => {
    const h = harness(undefined, {});
    const frames = await readFrames(
      await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startV1() }, { headers: V1 }),
    );
    const id = frames[0]?.result.task.id as string;
    const got = await rpc(h, "GetTask", { id, historyLength: 0, tenant: "" });
    expect(TaskV1.parse(got.body.result)).not.toHaveProperty("history");
    expect(got.body.result.status.state).toBe("TASK_STATE_COMPLETED");
    expect(got.body.result.artifacts).toBeDefined();
    const cancel = await rpc(h, "CancelTask", { id });
    expect(cancel.body.error).toMatchObject({ code: -32002, data: [{ reason: "TASK_NOT_CANCELABLE" }] });
    expect(cancel.body.error.data[0].metadata).toMatchObject({ taskId: id, state: "completed" });
  });

  it("refuses SubscribeToTask on an ended task (v1.0 rule); the v0.3 dialect still replays its end", async () => {
    const h = harness();
    const frames = await readFrames(
      await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startV1() }, { headers: V1 }),
    );
    const id = frames[0]?.result.task.id as string;
    const refused = await rpc(h, "SubscribeToTask", { id });
    expect(refused.body.error).toMatchObject({ code: -32004, data: [{ reason: "UNSUPPORTED_OPERATION" }] });
    const replay = await readFrames(await h.call({ jsonrpc: "2.0", id: 2, method: "SubscribeToTask", params: { id } }));
    expect(replay.map((f) => f.event)).toEqual(["task", "finished", "final"]);
  });

  it("replays what a resume from before the end missed, in v1.0 too; a resume at the end is refused", async () => {
    const h = harness();
    const frames = await readFrames(
      await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startV1() }, { headers: V1 }),
    );
    const id = frames[0]?.result.task.id as string;
    const lastSeq = Number(frames.filter((f) => f.event === "finished")[0]?.id);
    // A stream that dropped after its second event: everything after it, the end included.
    const resumed = await readFrames(
      await h.call(
        { jsonrpc: "2.0", id: 2, method: "SubscribeToTask", params: { id } },
        { headers: { ...V1, "Last-Event-ID": "2" } },
      ),
    );
    const replayed = resumed.filter((f) => f.event === "update" || f.event === "finished");
    expect(replayed.map((f) => Number(f.id))).toEqual(Array.from({ length: lastSeq - 2 }, (_, i) => i + 3));
    expect(replayed.at(-1)?.result.statusUpdate.status.state).toBe("TASK_STATE_COMPLETED");
    // Nothing missed: the v1.0 rule for an ended task.
    const atEnd = await h.call(
      { jsonrpc: "2.0", id: 3, method: "SubscribeToTask", params: { id } },
      { headers: { ...V1, "Last-Event-ID": String(lastSeq) } },
    );
    expect((await atEnd.json()).error).toMatchObject({ code: -32004 });
  });

  it("reattaches to a running task in v1.0 shapes, replaying after Last-Event-ID", async () => {
    const executor = new ScriptedExecutor(undefined, undefined, true);
    const h = harness(executor);
    const res = await h.call(
      { jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startV1() },
      { headers: V1 },
    );
    const [first] = await readFrames(res, 1);
    const id = first?.result.task.id as string;
    await executor.release();
    const resumed = h.call(
      { jsonrpc: "2.0", id: 2, method: "SubscribeToTask", params: { id } },
      { headers: { ...V1, "Last-Event-ID": "1" } },
    );
    await executor.release();
    await executor.release();
    const frames = await readFrames(await resumed);
    expect(frames.map((f) => f.event)).toEqual(["task", "update", "update", "finished", "final"]);
    expect(frames.map((f) => Object.keys(f.result)[0])).toEqual([
      "task",
      "statusUpdate",
      "statusUpdate",
      "statusUpdate",
      "task",
    ]);
  });
});
