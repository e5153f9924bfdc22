import { describe, expect, it, vi } from "vitest";
import { toFetchHandler } from "../src/adapters/fetch.js";
import { createA2AHandler } from "../src/index.js";
import type { TaskExecutionContext, TaskOutcome } from "../src/ports/task-executor.js";
import type { TaskStore } from "../src/ports/task-store.js";
import { ERROR_CODES } from "../src/protocol/errors.js";
import { METHODS, type MethodWire } from "../src/protocol/method-table.js";
import { TaskStatusUpdateEventV03, TaskV03 } from "../src/protocol/v0_3/schemas.js";
import { storeFixtures } from "../src/testing/store-fixtures.js";
import { harnessPerTest, readFrames, ScriptedExecutor, startParams, waitFor } from "./support/handler-harness.js";

const harness = harnessPerTest();

/** A started task kept working (its executor waits for the test): the harness, its stream's frames to come, its id. */
async function workingTask() {
  const h = harness(new ScriptedExecutor(undefined, undefined, true));
  const frames = readFrames(await h.stream());
  await waitFor(() => h.executor.dispatched === 1);
  return { h, frames, id: h.executor.contexts[0]?.task.id as string };
}

describe("SendStreamingMessage", () => {
  it("streams task(working) → update* → finished → final, each a JSON-RPC response with the request id", async () => {
    const h = harness();
    const res = await h.stream(startParams("restock aisle 5", "m-1"), { id: "req-7" });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(res.headers.get("cache-control")).toContain("no-cache");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const frames = await readFrames(res);
    expect(frames.map((f) => f.event)).toEqual(["task", "update", "update", "finished", "final"]);
    expect(frames.map((f) => f.id)).toEqual(["1", "2", "3", "4", "5"]);

    const task = TaskV03.parse(frames[0]?.result);
    expect(task.status.state).toBe("working");
    expect(task.metadata).toEqual({ storeId: "store-001", messageId: "m-1" });
    expect(task.history[0]?.parts).toEqual([{ kind: "text", text: "restock aisle 5" }]);

    const update = TaskStatusUpdateEventV03.parse(frames[1]?.result);
    expect(update).toMatchObject({ taskId: task.id, final: false, metadata: { robotId: "robot-1", step: 1 } });
    const finished = TaskStatusUpdateEventV03.parse(frames[3]?.result);
    expect(finished).toMatchObject({ taskId: task.id, final: true, status: { state: "completed" } });
    expect(TaskV03.parse(frames[4]?.result).status.state).toBe("completed");
  });

  it("answers to its alias message/stream", async () => {
    const h = harness();
    const frames = await readFrames(await h.stream(startParams(), { method: "message/stream" }));
    expect(frames[0]?.event).toBe("task");
    expect(frames.at(-2)?.event).toBe("finished");
  });

  it("returns the original task for a retry with the same messageId and dispatches robots once", async () => {
    const h = harness();
    const first = await readFrames(await h.stream(startParams("restock aisle 5", "m-1")), 1);
    const retry = await readFrames(await h.stream(startParams("restock aisle 5", "m-1")));
    expect(retry[0]?.result.id).toBe(first[0]?.result.id);
    expect(retry.at(-2)?.event).toBe("finished");
    expect(h.executor.dispatched).toBe(1);
  });

  it("answers a retry (same text, same storeId) with the original task even where a new start is refused (rule 1)", async () => {
    const h = harness();
    const first = await readFrames(await h.stream(startParams("restock aisle 5", "m-1")));
    const original = startParams("restock aisle 5", "m-1");
    // As new starts both would be refused (role, message.taskId); as retries of m-1 they reattach.
    const asAgent = { ...original, message: { ...original.message, role: "agent" } };
    const withTaskId = { ...original, message: { ...original.message, taskId: "some-task" } };
    for (const retry of [original, asAgent, withTaskId]) {
      const frames = await readFrames(await h.stream(retry));
      expect(frames[0]?.result.id).toBe(first[0]?.result.id);
    }
    expect(h.executor.dispatched).toBe(1);
  });

  it("refuses a messageId reused with another text or storeId: -32602 on params.message.messageId", async () => {
    const h = harness();
    const first = await readFrames(await h.stream(startParams("restock aisle 5", "m-1")));
    const taskId = first[0]?.result.id;
    const reuses = [
      startParams("something else", "m-1"),
      startParams("restock aisle 5", "m-1", "store-002"),
      startParams("   ", "m-1"),
      startParams("restock aisle 5", "m-1", "warehouse-9"),
    ];
    for (const reuse of reuses) {
      const res = await h.stream(reuse);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      const body = (await res.json()) as { error: { code: number; message: string; data: Record<string, unknown> } };
      expect(body.error.code).toBe(ERROR_CODES.InvalidParams);
      expect(body.error.data).toMatchObject({ field: "params.message.messageId", taskId });
      expect(body.error.message).toContain("was used for another task");
    }
    // A new messageId with the same text is a new task (rule 2); the refused reuses dispatched nothing.
    await readFrames(await h.stream(startParams("something else", "m-2")));
    expect(h.executor.dispatched).toBe(2);
  });

  it("creates exactly one task for 50 concurrent starts with one messageId", async () => {
    const h = harness();
    const responses = await Promise.all(Array.from({ length: 50 }, () => h.stream(startParams("x", "same"))));
    const frames = await Promise.all(responses.map((r) => readFrames(r)));
    const ids = new Set(frames.map((f) => f[0]?.result.id));
    expect(ids.size).toBe(1);
    expect(h.executor.dispatched).toBe(1);
    for (const f of frames) expect(f.at(-2)?.event).toBe("finished");
  });

  it("streams a retry to the end even when its answer comes back before the start that created the task", async () => {
    const h = harness();
    // The creating start's store answer is slow; its retry's answer ("already there") is not: the retry
    // subscribes before the creator takes the task over.
    const createOrGet = h.stores.idempotency.createOrGet.bind(h.stores.idempotency);
    let calls = 0;
    h.stores.idempotency.createOrGet = async (messageId, input) => {
      const first = calls++ === 0;
      const result = await createOrGet(messageId, input);
      if (first) await new Promise((resolve) => setTimeout(resolve, 30));
      return result;
    };
    const [creator, retry] = await Promise.all([
      h.stream(startParams("x", "raced")),
      h.stream(startParams("x", "raced")),
    ]);
    const frames = await Promise.all([readFrames(creator), readFrames(retry)]);
    expect(frames[0]?.at(-2)?.event).toBe("finished");
    expect(frames[1]?.at(-2)?.event).toBe("finished");
    expect(frames[1]?.map((f) => f.id)).toEqual(frames[0]?.map((f) => f.id));
    expect(h.executor.dispatched).toBe(1);
  });

  it("streams the artifacts a task ends with just before finished, and keeps them on the task", async () => {
    const executor = new ScriptedExecutor([], {
      state: "TASK_STATE_COMPLETED",
      message: "Done",
      artifacts: [{ artifact: { artifactId: "report", parts: [{ text: "3 shelves" }] }, lastChunk: true }],
    });
    const h = harness(executor);
    const frames = await readFrames(await h.stream());
    expect(frames.map((f) => `${f.event}:${f.id}`)).toEqual(["task:1", "update:2", "finished:3", "final:4"]);
    expect(frames[1]?.result).toMatchObject({
      kind: "artifact-update",
      artifact: { artifactId: "report" },
      lastChunk: true,
    });
    const task = (await h.rpc("GetTask", { id: frames[0]?.result.id })).body.result;
    expect(task.status.state).toBe("completed");
    expect(task.artifacts).toEqual([{ artifactId: "report", parts: [{ kind: "text", text: "3 shelves" }] }]);
  });

  it("starts a new task for a different messageId, even with identical text", async () => {
    const h = harness();
    const a = await readFrames(await h.stream(startParams("restock aisle 5", "m-1")));
    const b = await readFrames(await h.stream(startParams("restock aisle 5", "m-2")));
    expect(a[0]?.result.id).not.toBe(b[0]?.result.id);
    expect(h.executor.dispatched).toBe(2);
  });

  it("starts a new task for every request without a messageId", async () => {
    const h = harness();
    const a = await readFrames(await h.stream(startParams("restock aisle 5")));
    const b = await readFrames(await h.stream(startParams("restock aisle 5")));
    expect(a[0]?.result.id).not.toBe(b[0]?.result.id);
    expect(h.executor.dispatched).toBe(2);
  });

  it("keeps a messageId scoped to its workspace", async () => {
    const h = harness();
    const a = await readFrames(
      await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startParams("x", "m") }),
    );
    const b = await readFrames(
      await h.call(
        { jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startParams("x", "m") },
        { token: "partner-b" },
      ),
    );
    expect(a[0]?.result.id).not.toBe(b[0]?.result.id);
  });

  it("does not cancel the task when the client disconnects", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true));
    const controller = new AbortController();
    const res = await h.stream(startParams("x", "m-drop"));
    const [first] = await readFrames(res, 1);
    controller.abort();
    await res.body?.cancel();
    await h.executor.release();
    await h.executor.release();
    await h.executor.release();
    const taskId = first?.result.id as string;
    await waitFor(async () => (await h.rpc("GetTask", { id: taskId })).body.result.status.state === "completed");
  });

  it.each([
    ["missing message", { metadata: { storeId: "store-001" } }, "params.message"],
    [
      "missing metadata",
      { message: { role: "user", parts: [{ kind: "text", text: "x" }] } },
      "params.metadata.storeId",
    ],
    ["missing storeId", { ...startParams(), metadata: {} }, "params.metadata.storeId"],
    ["empty parts", { ...startParams(), message: { role: "user", parts: [] } }, "params.message.parts"],
    ["only blank text", startParams("   "), "params.message.parts"],
    [
      "unknown part kind",
      { ...startParams(), message: { role: "user", parts: [{ kind: "video" }] } },
      "params.message.parts.0.kind",
    ],
    [
      "agent role",
      { ...startParams(), message: { role: "agent", parts: [{ kind: "text", text: "x" }] } },
      "params.message.role",
    ],
    ["unknown environment", startParams("x", undefined, "warehouse-9"), "params.metadata.storeId"],
    ["U+0000 in the text", startParams("restock \u0000 aisle"), "params.message.parts.0.text"],
    ["U+0000 in the messageId", startParams("x", "m\u0000"), "params.message.messageId"],
    [
      "numeric messageId",
      { ...startParams(), message: { role: "user", messageId: 5, parts: [{ kind: "text", text: "x" }] } },
      "params.message.messageId",
    ],
  ])("answers -32602 naming the field for %s", async (_name, params, field) => {
    const h = harness();
    const res = await h.stream(params as never);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.id).toBe("s1");
    expect(body.error.code).toBe(ERROR_CODES.InvalidParams);
    expect(body.error.data.field).toBe(field);
    expect(h.executor.dispatched).toBe(0);
  });
});

describe("GetTask, CancelTask, SubscribeToTask", () => {
  it("keeps the stored task as it was when an executor edits the message and task it was given", async () => {
    class EditingExecutor extends ScriptedExecutor {
      override async execute(context: TaskExecutionContext): Promise<TaskOutcome> {
        const { message, task } = context;
        const [part] = message.parts;
        if (part?.text !== undefined) part.text = "edited by the executor";
        message.messageId = "edited";
        task.history.length = 0;
        return super.execute(context);
      }
    }
    const h = harness(new EditingExecutor());
    const frames = await readFrames(await h.stream(startParams("restock aisle 5", "m-original")));
    expect(frames.at(-1)?.event).toBe("final");
    const task = (await h.rpc("GetTask", { id: frames[0]?.result.id })).body.result;
    expect(task.history[0]).toMatchObject({
      messageId: "m-original",
      parts: [{ kind: "text", text: "restock aisle 5" }],
    });
    expect(h.executor.contexts[0]?.message).toMatchObject({ parts: [{ text: "restock aisle 5" }] });
  });

  it("polls a task with GetTask and its alias, honouring historyLength", async () => {
    const h = harness();
    const frames = await readFrames(await h.stream());
    const id = frames[0]?.result.id;
    for (const method of ["GetTask", "tasks/get"]) {
      const { body } = await h.rpc(method, { id });
      expect(TaskV03.parse(body.result).status.state).toBe("completed");
    }
    expect((await h.rpc("GetTask", { id, historyLength: 0 })).body.result.history).toEqual([]);
    expect((await h.rpc("GetTask", { id, historyLength: 1 })).body.result.history).toHaveLength(1);
  });

  it("cancels a running task: the stream ends canceled and the robots stop", async () => {
    const { h, frames: reader, id } = await workingTask();
    const { body } = await h.rpc("CancelTask", { id });
    expect(body.result.status.state).toBe("canceled");
    expect(h.executor.contexts[0]?.signal.aborted).toBe(true);
    const frames = await reader;
    expect(frames.at(-2)).toMatchObject({ event: "finished", result: { status: { state: "canceled" }, final: true } });
    expect(frames.filter((f) => f.event === "finished")).toHaveLength(1);
    expect((await h.rpc("GetTask", { id })).body.result.status.state).toBe("canceled");
  });

  it("refuses to cancel a terminal task with -32002 and the state in data", async () => {
    const h = harness();
    const id = (await readFrames(await h.stream()))[0]?.result.id;
    for (const method of ["CancelTask", "tasks/cancel"]) {
      const { body } = await h.rpc(method, { id });
      expect(body.error).toMatchObject({ code: ERROR_CODES.TaskNotCancelable, data: { state: "completed" } });
    }
  });

  it.each(["GetTask", "tasks/get", "CancelTask", "tasks/cancel", "SubscribeToTask", "tasks/resubscribe"])(
    "%s answers -32001 for an unknown task and for another workspace's task",
    async (method) => {
      const h = harness(new ScriptedExecutor(undefined, undefined, true));
      const res = await h.stream();
      const [first] = await readFrames(res, 1);
      const unknown = await h.rpc(method, { id: "00000000-0000-0000-0000-000000000000" });
      expect(unknown.body.error.code).toBe(ERROR_CODES.TaskNotFound);
      const foreign = await h.rpc(method, { id: first?.result.id }, "partner-b");
      expect(foreign.body.error.code).toBe(ERROR_CODES.TaskNotFound);
      expect(foreign.body.error).toEqual(expect.objectContaining({ message: unknown.body.error.message }));
      // The foreign cancel did not touch the task.
      expect((await h.rpc("GetTask", { id: first?.result.id })).body.result.status.state).toBe("working");
    },
  );

  it("SubscribeToTask with Last-Event-ID replays exactly the missed events, then live ones", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true));
    const res = await h.stream(startParams("x", "m-re"));
    const firstConnection = readFrames(res, 2);
    await h.executor.release(); // update seq 2
    const seen = await firstConnection;
    expect(seen.map((f) => f.id)).toEqual(["1", "2"]);
    await h.executor.release(); // update seq 3, missed by the client
    await waitFor(async () => (await h.stores.events.readAfter(seen[0]?.result.id, 0)).length === 3);

    const resumed = await h.call(
      { jsonrpc: "2.0", id: "sub", method: "SubscribeToTask", params: { id: seen[0]?.result.id } },
      { headers: { "last-event-id": "2" } },
    );
    const framesPromise = readFrames(resumed);
    await h.executor.release(); // finish
    const frames = await framesPromise;
    expect(frames.map((f) => `${f.event}:${f.id}`)).toEqual(["task:1", "update:3", "finished:4", "final:5"]);
    const allIds = new Set([...seen, ...frames.slice(1)].map((f) => `${f.event}:${f.id}`));
    expect(allIds.size).toBe(seen.length + frames.length - 1);
  });

  it("SubscribeToTask without Last-Event-ID sends the snapshot then only new events", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true));
    const [first] = await readFrames(await h.stream(), 1);
    await h.executor.release();
    await waitFor(async () => (await h.stores.events.readAfter(first?.result.id, 0)).length === 2);
    // The reattach reads the task when it is answered; release the robots only after that.
    const subResponse = await h.call({
      jsonrpc: "2.0",
      id: "sub",
      method: "tasks/resubscribe",
      params: { id: first?.result.id },
    });
    const sub = readFrames(subResponse);
    await h.executor.release();
    await h.executor.release();
    const frames = await sub;
    expect(frames.map((f) => `${f.event}:${f.id}`)).toEqual(["task:1", "update:3", "finished:4", "final:5"]);
    expect(frames[0]?.result.status.message?.parts[0].text).toBe("robot-1 moving to aisle 5");
  });

  it("never repeats the task frame, even for Last-Event-ID: 0", async () => {
    const h = harness();
    const id = (await readFrames(await h.stream()))[0]?.result.id;
    const frames = await readFrames(
      await h.call(
        { jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id } },
        { headers: { "last-event-id": "0" } },
      ),
    );
    expect(frames.map((f) => `${f.event}:${f.id}`)).toEqual([
      "task:1",
      "update:2",
      "update:3",
      "finished:4",
      "final:5",
    ]);
  });

  it("SubscribeToTask of a terminal task sends task, finished, final at once", async () => {
    const h = harness();
    const id = (await readFrames(await h.stream()))[0]?.result.id;
    const frames = await readFrames(await h.call({ jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id } }));
    expect(frames.map((f) => f.event)).toEqual(["task", "finished", "final"]);
    expect(frames[0]?.result.status.state).toBe("completed");
  });
});

describe("protocol errors", () => {
  it("-32601 lists every name and alias the endpoint answers, so the caller learns what to send", async () => {
    const h = harness();
    const json = await (await h.call({ jsonrpc: "2.0", id: "x", method: "tasks/archive" })).json();
    expect(json.error.code).toBe(ERROR_CODES.MethodNotFound);
    expect(json.error.data.method).toBe("tasks/archive");
    const expected = (Object.entries(METHODS) as [string, MethodWire][]).flatMap(([name, entry]) => [
      name,
      ...(entry.alias ? [entry.alias] : []),
    ]);
    expect([...json.error.data.methods].sort()).toEqual(expected.sort());
  });

  it("-32601 names the method a typo most likely meant: the same name in another case, or one a letter or two off", async () => {
    const h = harness();
    for (const [sent, meant] of [
      ["getTask", "GetTask"],
      ["sendStreamingMessage", "SendStreamingMessage"],
      ["TASKS/GET", "tasks/get"],
      ["SubscribeTask", "SubscribeToTask"],
      ["tasks/cancle", "tasks/cancel"],
    ]) {
      const json = await (await h.call({ jsonrpc: "2.0", id: "x", method: sent })).json();
      expect(json.error.code, sent).toBe(ERROR_CODES.MethodNotFound);
      expect(json.error.message, sent).toBe(`Method not found: ${sent}; did you mean ${meant}?`);
      expect(json.error.data.suggestion, sent).toBe(meant);
    }
    // Nothing close: no guess.
    const json = await (await h.call({ jsonrpc: "2.0", id: "x", method: "tasks/archive" })).json();
    expect(json.error.message).toBe("Method not found: tasks/archive");
    expect(json.error.data).not.toHaveProperty("suggestion");
  });

  it("a start without metadata.storeId is told what the field selects", async () => {
    const h = harness();
    const json = await (await h.stream({ ...startParams(), metadata: {} })).json();
    expect(json.error.code).toBe(ERROR_CODES.InvalidParams);
    expect(json.error.data.field).toBe("params.metadata.storeId");
    expect(json.error.message).toMatch(/params\.metadata\.storeId: is required: the storeId of the Environment/);
  });

  it.each([
    ["not JSON", "{oops", ERROR_CODES.ParseError, null],
    ["a batch", "[]", ERROR_CODES.InvalidRequest, null],
    ["a string", '"hi"', ERROR_CODES.InvalidRequest, null],
    ["wrong jsonrpc", { jsonrpc: "1.0", id: 1, method: "GetTask" }, ERROR_CODES.InvalidRequest, 1],
    ["missing id", { jsonrpc: "2.0", method: "GetTask", params: {} }, ERROR_CODES.InvalidRequest, null],
    ["object id", { jsonrpc: "2.0", id: {}, method: "GetTask" }, ERROR_CODES.InvalidRequest, null],
    ["numeric method", { jsonrpc: "2.0", id: 1, method: 7 }, ERROR_CODES.InvalidRequest, 1],
    ["array params", { jsonrpc: "2.0", id: 1, method: "GetTask", params: [] }, ERROR_CODES.InvalidRequest, 1],
    ["unknown method", { jsonrpc: "2.0", id: "x", method: "tasks/archive" }, ERROR_CODES.MethodNotFound, "x"],
    ["GetTask without id", { jsonrpc: "2.0", id: 2, method: "GetTask", params: {} }, ERROR_CODES.InvalidParams, 2],
    [
      "negative historyLength",
      { jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: "a", historyLength: -1 } },
      ERROR_CODES.InvalidParams,
      2,
    ],
    [
      "SendMessage without a message",
      { jsonrpc: "2.0", id: 3, method: "SendMessage", params: { metadata: { storeId: "store-001" } } },
      ERROR_CODES.InvalidParams,
      3,
    ],
    [
      "GetExtendedAgentCard",
      { jsonrpc: "2.0", id: 4, method: "GetExtendedAgentCard" },
      ERROR_CODES.UnsupportedOperation,
      4,
    ],
  ])("%s → %s", async (_name, body, code, id) => {
    const h = harness();
    const res = await h.call(body);
    expect(res.status).toBe(200);
    const json = await res.json();
    expect(json).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
    expect(typeof json.error.message).toBe("string");
  });

  it("hides internal failures behind a bare -32603", async () => {
    const h = harness();
    h.stores.tasks.get = async () => {
      throw new Error("connection to 10.0.0.5 refused: SELECT secret FROM tasks");
    };
    const { status, body } = await h.rpc("GetTask", { id: "x" });
    // A store failure may be an outage: 503 so clients retry, and nothing of the cause in the answer.
    expect(status).toBe(503);
    expect(body.error.code).toBe(ERROR_CODES.InternalError);
    expect(JSON.stringify(body)).not.toMatch(/10\.0\.0\.5|SELECT|secret/);
  });

  it("answers 401 with WWW-Authenticate for a missing or unknown token, 403 for a user token, never SSE", async () => {
    const h = harness();
    for (const token of [null, "nope"]) {
      const res = await h.call(
        { jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startParams() },
        { token },
      );
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(res.headers.get("content-type")).toMatch(/application\/json/);
      expect((await res.json()).id).toBeNull();
    }
    const res = await h.call({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }, { token: "user-a" });
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toMatch(/user session token/);
    expect(h.executor.dispatched).toBe(0);
  });

  it("answers 413 for a body over the limit and 405 for other HTTP methods", async () => {
    const h = harness(undefined, { maxBodyBytes: 1024 });
    const res = await h.call({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x".repeat(2000) } });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe(ERROR_CODES.InvalidRequest);
    const get = await toFetchHandler(h.handler)(new Request("http://test/api/v1/a2a"));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("answers -32700 for a body that is not UTF-8", async () => {
    const h = harness();
    const res = await toFetchHandler(h.handler)(
      new Request("http://test/api/v1/a2a", {
        method: "POST",
        headers: { authorization: "Bearer partner-a" },
        body: new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]),
      }),
    );
    expect((await res.json()).error.code).toBe(ERROR_CODES.ParseError);
  });

  it("resolves every alias in the method table to its method", async () => {
    const h = harness();
    for (const [name, entry] of Object.entries(METHODS) as [string, MethodWire][]) {
      for (const wire of [name, entry.alias].filter(Boolean) as string[]) {
        const res = await h.call({ jsonrpc: "2.0", id: 1, method: wire, params: { id: "missing" } });
        const body = res.headers.get("content-type")?.includes("json") ? await res.json() : undefined;
        // Known methods never answer "method not found".
        expect(body?.error?.code).not.toBe(ERROR_CODES.MethodNotFound);
      }
    }
  });
});

describe("keep-alive", () => {
  it("sends keep-alive comments on an idle stream without re-querying the store, then the next event", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true), { keepAliveMs: 20 });
    let reads = 0;
    const readAfter = h.stores.events.readAfter.bind(h.stores.events);
    h.stores.events.readAfter = (...args) => {
      reads++;
      return readAfter(...args);
    };
    const res = await h.stream();
    const reader = res.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    const decoder = new TextDecoder();
    let text = "";
    while ((text.match(/: keep-alive/g) ?? []).length < 3) text += decoder.decode((await reader.read()).value);
    expect(reads).toBe(0); // a task this process runs reaches its streams from memory
    await h.executor.release();
    while (!text.includes("event: update")) text += decoder.decode((await reader.read()).value);
    expect(text.indexOf("event: task")).toBeLessThan(text.indexOf(": keep-alive"));
    await reader.cancel();
  });
});

describe("limits", () => {
  it("answers 429 with Retry-After and a JSON-RPC body once a caller exceeds its rate; others are unaffected", async () => {
    const h = harness(undefined, { rateLimit: { requestsPerSecond: 1, burst: 3 } });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await h.rpc("GetTask", { id: "x" })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    const res = await h.call({ jsonrpc: "2.0", id: 9, method: "GetTask", params: { id: "x" } });
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(await res.json()).toMatchObject({
      jsonrpc: "2.0",
      id: null,
      error: { code: ERROR_CODES.InvalidRequest, data: { httpStatus: 429 } },
    });
    expect((await h.rpc("GetTask", { id: "x" }, "partner-b")).status).toBe(200);
  });

  it("caps open streams per caller and frees the slot when a stream ends", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true), { maxOpenStreamsPerCaller: 1 });
    const first = await h.stream();
    const reader = first.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    const chunk = new TextDecoder().decode((await reader.read()).value); // the task frame; the stream stays open
    const taskId = JSON.parse(chunk.split("data: ")[1] ?? "{}").result.id;
    // The executor starts once the first frame is out.
    await expect.poll(() => h.executor.dispatched).toBe(1);
    const second = await h.stream();
    expect(second.status).toBe(429);
    expect(h.executor.dispatched).toBe(1);
    // Polling is not a stream: still allowed.
    expect((await h.rpc("GetTask", { id: taskId })).status).toBe(200);
    await reader.cancel();
    await waitFor(async () => (await h.stream(startParams("x", "m-after"))).status === 200);
  });
});

describe("resilience", () => {
  // The executor starts on the event loop's next turn; a cancel can come before that. An executor that
  // only listens for the abort event (as many do) must then not be started with a signal already aborted.
  it("lets go of a task canceled before its executor's turn: shutdown does not wait on it", async () => {
    class AbortOnlyExecutor extends ScriptedExecutor {
      override execute(context: TaskExecutionContext): Promise<TaskOutcome> {
        this.dispatched++;
        return new Promise((resolve) =>
          context.signal.addEventListener("abort", () => resolve({ state: "TASK_STATE_FAILED" })),
        );
      }
    }
    const h = harness(new AbortOnlyExecutor());
    const body = (await h.stream()).body as ReadableStream<Uint8Array>;
    const reader = body.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const taskId = JSON.parse(first.split("data: ")[1] ?? "{}").result.id as string;
    expect((await h.rpc("CancelTask", { id: taskId })).body.result.status.state).toBe("canceled");
    await reader.cancel();
    // Whether or not the executor had started, the handler shuts down promptly.
    const closed = h.handler.close({ graceMs: 0 }).then(() => "closed");
    const late = new Promise((resolve) => setTimeout(() => resolve("still waiting"), 2_000));
    expect(await Promise.race([closed, late])).toBe("closed");
    expect(h.executor.dispatched).toBeLessThanOrEqual(1);
  });

  it("keeps a completed task completed when storing its end fails once (retried, not left to the sweep)", async () => {
    const h = harness();
    const append = h.stores.events.append.bind(h.stores.events);
    let failures = 1;
    h.stores.events.append = async (taskId, entry) => {
      if (entry.event === "finished" && failures-- > 0) throw new Error("connection reset");
      return append(taskId, entry);
    };
    const frames = await readFrames(await h.stream());
    expect(frames.at(-2)).toMatchObject({ event: "finished", result: { status: { state: "completed" } } });
  });

  it("ends a stream whose task was deleted instead of spinning", async () => {
    const { h, frames: reading, id } = await workingTask();
    const entry = h.stores.tasks.entries.get(id);
    h.stores.tasks.entries.delete(id);
    for (const listener of entry?.watchers ?? []) listener(undefined);
    const frames = await reading;
    expect(frames.map((f) => f.event)).toEqual(["task"]);
  });
});

describe("recovery and shutdown", () => {
  /** A working task of workspace ws-a whose runner vanished two minutes ago (its lease has run out). */
  async function createOrphan(tasks: TaskStore, id: string): Promise<void> {
    const crashedAt = new Date(Date.now() - 120_000).toISOString();
    const lease = { owner: "crashed-instance", durationMs: -120_000 };
    const orphan = storeFixtures().newTask("ws-a", { createdAt: crashedAt, lease });
    await tasks.create({ ...orphan, task: { ...orphan.task, id } });
  }

  it("ends a task whose runner vanished (lease expired) as failed, with the reason, and streams see it", async () => {
    const h = harness();
    await createOrphan(h.stores.tasks, "orphan-1");
    expect(await h.handler.recoverOrphanedTasks()).toBe(1);
    expect(await h.handler.recoverOrphanedTasks()).toBe(0);
    const frames = await readFrames(
      await h.call({ jsonrpc: "2.0", id: 1, method: "SubscribeToTask", params: { id: "orphan-1" } }),
    );
    expect(frames.map((f) => f.event)).toEqual(["task", "finished", "final"]);
    expect(frames[1]?.result.status.state).toBe("failed");
    expect(frames[1]?.result.status.message.parts[0].text).toMatch(/stopped before the task finished/);
  });

  it("stops this process's robots at once when another instance cancels the task they run", async () => {
    const a = harness(new ScriptedExecutor(undefined, undefined, true));
    // A second handler (another instance) over the same stores.
    const b = createA2AHandler({
      stores: a.stores,
      executor: new ScriptedExecutor(),
      authenticate: async () => ({ ok: true, workspaceId: "ws-a" }),
      leaseMs: 60_000,
    });
    try {
      const reading = readFrames(await a.stream());
      await waitFor(() => a.executor.dispatched === 1);
      const context = a.executor.contexts[0];
      const id = context?.task.id as string;
      const canceled = await b.fetch(
        new Request("http://b/api/v1/a2a", {
          method: "POST",
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "CancelTask", params: { id } }),
        }),
      );
      expect((await canceled.json()).result.status.state).toBe("canceled");
      // A's stream sees the cancel written by B, and A's robots stop without waiting for their next step.
      expect((await reading).map((f) => f.event)).toEqual(["task", "finished", "final"]);
      await waitFor(() => context?.signal.aborted === true, 1_000);
    } finally {
      await b.close({ graceMs: 0 });
    }
  });

  it("prints an executor's throw on the console when the application passed no logger", async () => {
    const printed: unknown[][] = [];
    const consoleError = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      printed.push(args);
    });
    try {
      const jammed = new Error("robot arm jammed");
      const executor = Object.assign(new ScriptedExecutor(), {
        execute: async () => {
          throw jammed;
        },
      });
      const h = harness(executor, { logger: undefined });
      const frames = await readFrames(await h.stream());
      expect(frames.at(-2)?.result.status.state).toBe("failed");
      expect(printed).toContainEqual([
        expect.stringContaining("executor failed"),
        expect.objectContaining({ err: jammed }),
      ]);
    } finally {
      consoleError.mockRestore();
    }
  });

  it("logs each task's start and end at info: ids, storeId, state and duration, never the task's text", async () => {
    const lines: Array<{ obj: Record<string, unknown>; msg: string | undefined }> = [];
    const info = (obj: object, msg?: string) => lines.push({ obj: obj as Record<string, unknown>, msg });
    const h = harness(undefined, { logger: { info, warn() {}, error() {} } });
    const frames = await readFrames(await h.stream(startParams("restock the secret aisle", "log-1")));
    const taskId = frames[0]?.result.id;
    const started = lines.find((line) => line.msg === "task started");
    const ended = lines.find((line) => line.msg === "task ended");
    expect(started?.obj).toEqual({ taskId, workspaceId: "ws-a", storeId: "store-001" });
    expect(ended?.obj).toMatchObject({ taskId, workspaceId: "ws-a", storeId: "store-001", state: "completed" });
    expect(ended?.obj.durationMs).toEqual(expect.any(Number));
    // Written on the turn after the first frame, the start's line still comes before the end's.
    expect(lines.indexOf(started as (typeof lines)[number])).toBeLessThan(
      lines.indexOf(ended as (typeof lines)[number]),
    );
    expect(JSON.stringify(lines)).not.toContain("secret aisle");
  });

  it("ends every other orphan when one of them cannot be ended, and logs the one it skipped", async () => {
    const errors: unknown[] = [];
    const h = harness(undefined, { logger: { info() {}, warn() {}, error: (obj) => errors.push(obj) } });
    for (const id of ["orphan-bad", "orphan-2", "orphan-3"]) await createOrphan(h.stores.tasks, id);
    // The oldest orphan's end cannot be written (a bad row): it must not hold up the others.
    const append = h.stores.events.append.bind(h.stores.events);
    h.stores.events.append = async (taskId, entry) => {
      if (taskId === "orphan-bad") throw new Error("invalid input syntax");
      return append(taskId, entry);
    };
    expect(await h.handler.recoverOrphanedTasks()).toBe(2);
    const state = async (id: string) => (await h.rpc("GetTask", { id })).body.result.status.state;
    expect([await state("orphan-2"), await state("orphan-3")]).toEqual(["failed", "failed"]);
    expect(await state("orphan-bad")).toBe("working");
    expect(errors).toContainEqual(expect.objectContaining({ taskId: "orphan-bad" }));
  });

  it("never takes over a task whose runner keeps renewing its lease", async () => {
    let now = Date.now();
    const h = harness(new ScriptedExecutor(undefined, undefined, true), { now: () => new Date(now), leaseMs: 60 });
    await readFrames(await h.stream(), 1);
    now += 30;
    await new Promise((r) => setTimeout(r, 120)); // several renewals and sweeps
    now += 30;
    expect(await h.handler.recoverOrphanedTasks()).toBe(0);
    expect((await h.rpc("GetTask", { id: h.executor.contexts[0]?.task.id })).body.result.status.state).toBe("working");
  });

  it("answers 503 (retryable) once closing, and when the credential store is unreachable", async () => {
    const h = harness();
    await h.handler.close({ graceMs: 0 });
    const closed = await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startParams() });
    expect(closed.status).toBe(503);
    expect(closed.headers.get("retry-after")).toBe("1");
    expect((await closed.json()).error.code).toBe(ERROR_CODES.InternalError);
    expect(h.executor.dispatched).toBe(0);

    const down = harness(undefined, {
      authenticate: async () => {
        throw new Error("ECONNREFUSED 127.0.0.1:5432");
      },
    });
    const res = await down.call({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } });
    expect(res.status).toBe(503);
    expect(JSON.stringify(await res.json())).not.toContain("ECONNREFUSED");
  });

  it("serves web-standard requests through handler.fetch", async () => {
    const h = harness();
    const res = await h.handler.fetch(
      new Request("http://test/api/v1/a2a", {
        method: "POST",
        headers: { authorization: "Bearer partner-a" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: startParams() }),
      }),
    );
    expect((await readFrames(res)).map((f) => f.event)).toEqual(["task", "update", "update", "finished", "final"]);
  });

  it("close() ends open streams and fails tasks still running after the grace period", async () => {
    const { h, frames: reader, id } = await workingTask();
    await h.handler.close({ graceMs: 10 });
    const frames = await reader;
    expect(frames.map((f) => f.event)).toEqual(["task"]);
    const record = await h.stores.tasks.get("ws-a", id);
    expect(record?.task.status.state).toBe("TASK_STATE_FAILED");
  });
});
