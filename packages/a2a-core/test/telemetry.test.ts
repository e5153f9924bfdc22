import { installTestTelemetry } from "@a2a-partner/test-support/telemetry";
import { afterAll, describe, expect, it } from "vitest";
import type { TaskExecutor } from "../src/ports/task-executor.js";
import { ERROR_CODES } from "../src/protocol/errors.js";
import { type Harness, harnessPerTest, readFrames, startParams, waitFor } from "./support/handler-harness.js";

// Registered before any handler exists, as an application registers its SDK first.
const otel = installTestTelemetry();
afterAll(() => otel.shutdown());
const harness = harnessPerTest();

const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN_ID = "b7ad6b7169203331";

async function startTask(h: Harness, messageId?: string): Promise<string> {
  const res = await h.call({
    jsonrpc: "2.0",
    id: "s",
    method: "SendStreamingMessage",
    params: startParams("go", messageId),
  });
  const frames = await readFrames(res);
  expect(frames.at(-1)?.event).toBe("final");
  return frames[0]?.result.id as string;
}

describe("request spans", () => {
  it("continue the caller's traceparent and name the canonical method, the alias sent and the task", async () => {
    const h = harness();
    const taskId = await startTask(h);
    const res = await h.call(
      { jsonrpc: "2.0", id: 7, method: "tasks/get", params: { id: taskId } },
      { headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` } },
    );
    expect(res.status).toBe(200);
    const span = otel.spans().find((s) => s.name === "GetTask" && s.spanContext().traceId === TRACE_ID);
    expect(span?.parentSpanContext?.spanId).toBe(PARENT_SPAN_ID);
    expect(span?.attributes).toMatchObject({
      "rpc.system": "jsonrpc",
      "rpc.method": "GetTask",
      "rpc.method_original": "tasks/get",
      "rpc.jsonrpc.request_id": "7",
      "a2a.task.id": taskId,
      "http.response.status_code": 200,
    });
    expect(span?.attributes["rpc.jsonrpc.error_code"]).toBeUndefined();
  });

  it("carry the JSON-RPC error code, and errors are counted by method and code", async () => {
    const h = harness();
    const before = await otel.sum("a2a.server.errors", { "rpc.method": "GetTask", "rpc.jsonrpc.error_code": -32001 });
    const { body } = await h.rpc("GetTask", { id: "no-such-task" });
    expect(body.error.code).toBe(ERROR_CODES.TaskNotFound);
    const span = otel.spansNamed("GetTask").find((s) => s.attributes["a2a.task.id"] === "no-such-task");
    expect(span?.attributes).toMatchObject({ "rpc.jsonrpc.error_code": -32001, "error.type": "-32001" });
    expect(
      await otel.sum("a2a.server.errors", {
        "rpc.method": "GetTask",
        "rpc.jsonrpc.error_code": -32001,
        "http.response.status_code": 200,
      }),
    ).toBe(before + 1);
    expect(
      await otel.count("a2a.server.request.duration", { "rpc.method": "GetTask", "rpc.jsonrpc.error_code": -32001 }),
    ).toBeGreaterThanOrEqual(1);
  });

  it("of a request that fails in the server put their trace and span ids on its log line", async () => {
    const logged: Array<{ obj: Record<string, unknown>; msg: string | undefined }> = [];
    const record = (obj: object, msg?: string) => logged.push({ obj: obj as Record<string, unknown>, msg });
    const h = harness(undefined, { logger: { info: record, warn: record, error: record } });
    h.stores.tasks.get = async () => {
      throw new Error("the disk is on fire");
    };
    const res = await h.call(
      { jsonrpc: "2.0", id: 8, method: "tasks/get", params: { id: "any" } },
      { headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` } },
    );
    expect(res.status).toBeGreaterThanOrEqual(500);
    const span = otel.spansNamed("GetTask").find((s) => s.attributes["rpc.jsonrpc.request_id"] === "8");
    const line = logged.find((entry) => entry.msg === "request failed");
    expect(line?.obj).toMatchObject({ trace_id: TRACE_ID, span_id: span?.spanContext().spanId });
  });

  it("of a refused request are named a2a.request, and the refusal is counted by reason", async () => {
    const h = harness(undefined, { rateLimit: { requestsPerSecond: 1, burst: 1 } });
    const before = await otel.sum("a2a.server.refusals", { "a2a.refusal.reason": "rate_limit" });
    await h.rpc("GetTask", { id: "x" });
    const limited = await h.rpc("GetTask", { id: "x" });
    expect(limited.status).toBe(429);
    expect(await otel.sum("a2a.server.refusals", { "a2a.refusal.reason": "rate_limit" })).toBe(before + 1);
    expect(otel.spansNamed("a2a.request").some((s) => s.attributes["http.response.status_code"] === 429)).toBe(true);
  });
});

describe("a task's life", () => {
  it("is one trace: the start request, its stream until `final`, the task span with every durable event", async () => {
    const h = harness();
    const started = await otel.sum("a2a.tasks.started");
    const completed = await otel.sum("a2a.tasks.ended", { "a2a.task.state": "completed" });
    const updates = await otel.sum("a2a.events.appended", { "a2a.event.name": "update" });
    const taskId = await startTask(h, "m-telemetry");
    await waitFor(() => otel.spansNamed("a2a.task").some((s) => s.attributes["a2a.task.id"] === taskId));

    const request = otel.spansNamed("SendStreamingMessage").find((s) => s.attributes["a2a.task.id"] === taskId);
    const stream = otel.spansNamed("a2a.stream").find((s) => s.attributes["a2a.task.id"] === taskId);
    const task = otel.spansNamed("a2a.task").find((s) => s.attributes["a2a.task.id"] === taskId);
    const traceId = request?.spanContext().traceId;
    expect(traceId).toBeDefined();
    for (const child of [stream, task]) {
      expect(child?.spanContext().traceId).toBe(traceId);
      expect(child?.parentSpanContext?.spanId).toBe(request?.spanContext().spanId);
    }
    expect(stream?.attributes).toMatchObject({
      "rpc.method": "SendStreamingMessage",
      "a2a.stream.start_seq": 1,
      "a2a.stream.end_reason": "final",
      "a2a.stream.last_seq": 4,
    });
    expect(task?.attributes).toMatchObject({ "a2a.store_id": "store-001", "a2a.task.state": "completed" });
    expect(task?.events.map((e) => [e.attributes?.["a2a.event.seq"], e.attributes?.["a2a.event.name"]])).toEqual([
      [2, "update"],
      [3, "update"],
      [4, "finished"],
    ]);
    // The stream lives until its last frame; the request span only until the stream's headers. The SDK
    // anchors each span's times to a millisecond wall clock read when that span starts, so two spans' ends
    // compare only to within a millisecond (a span that ended first could read a few µs later).
    const endOf = (span: typeof stream) => (span?.endTime[0] ?? 0) * 1e9 + (span?.endTime[1] ?? 0);
    expect(endOf(stream)).toBeGreaterThanOrEqual(endOf(request) - 1e6);

    expect(await otel.sum("a2a.tasks.started")).toBe(started + 1);
    expect(await otel.sum("a2a.tasks.ended", { "a2a.task.state": "completed" })).toBe(completed + 1);
    expect(await otel.sum("a2a.events.appended", { "a2a.event.name": "update" })).toBe(updates + 2);
    expect(await otel.count("a2a.task.duration", { "a2a.task.state": "completed" })).toBeGreaterThanOrEqual(1);
    expect(await otel.sum("a2a.server.open_streams")).toBe(0);
  });

  it("names no store on the task span of a task whose metadata has no storeId (a plain executor)", async () => {
    const h = harness<TaskExecutor>({ execute: async () => ({ state: "TASK_STATE_COMPLETED" }) });
    const params = { message: { role: "user", parts: [{ kind: "text", text: "go" }] } };
    const frames = await readFrames(await h.call({ jsonrpc: "2.0", id: "p", method: "SendStreamingMessage", params }));
    const taskId = frames[0]?.result.id as string;
    await waitFor(() => otel.spansNamed("a2a.task").some((s) => s.attributes["a2a.task.id"] === taskId));
    const task = otel.spansNamed("a2a.task").find((s) => s.attributes["a2a.task.id"] === taskId);
    expect(task?.attributes).toMatchObject({ "a2a.task.state": "completed" });
    expect(task?.attributes).not.toHaveProperty("a2a.store_id");
  });

  it("follows a resubscription to its end, and counts a stream-cap refusal", async () => {
    const h = harness(undefined, { maxOpenStreamsPerCaller: 1 });
    const taskId = await startTask(h);
    const open = await h.call({ jsonrpc: "2.0", id: "sub", method: "SubscribeToTask", params: { id: taskId } });
    // A finished task's stream replays finished + final and ends: it is open only until then.
    await readFrames(open);
    const refusals = await otel.sum("a2a.server.refusals", { "a2a.refusal.reason": "stream_cap" });
    const h2 = harness(undefined, { maxOpenStreamsPerCaller: 0 });
    const refused = await h2.rpc("SubscribeToTask", { id: taskId });
    expect(refused.status).toBe(429);
    expect(await otel.sum("a2a.server.refusals", { "a2a.refusal.reason": "stream_cap" })).toBe(refusals + 1);
    const subscription = otel
      .spansNamed("a2a.stream")
      .find((s) => s.attributes["rpc.method"] === "SubscribeToTask" && s.attributes["a2a.task.id"] === taskId);
    expect(subscription?.attributes["a2a.stream.end_reason"]).toBe("final");
  });
});
