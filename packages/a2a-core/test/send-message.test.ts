import { describe, expect, it } from "vitest";
import { toFetchHandler } from "../src/adapters/fetch.js";
import type { TaskExecutionContext, TaskExecutor, TaskOutcome } from "../src/ports/task-executor.js";
import type { Message } from "../src/protocol/schemas/a2a.js";
import { TaskV1 } from "../src/protocol/schemas/a2a-v1.js";
import type { MessageV03 } from "../src/protocol/v0_3/schemas.js";
import {
  type Harness,
  harnessPerTest,
  readFrames,
  ScriptedExecutor,
  startParams,
  waitFor,
} from "./support/handler-harness.js";

/** SendMessage (`message/send`, HTTP+JSON `POST /message:send`): a start answered with the task. */

const harness = harnessPerTest();
const V1 = { "A2A-Version": "1.0" };

function send(h: Harness, params: unknown, options: { method?: string; v1?: boolean; signal?: AbortSignal } = {}) {
  return h.call(
    { jsonrpc: "2.0", id: "m", method: options.method ?? "SendMessage", params },
    { ...(options.v1 ? { headers: V1 } : {}), ...(options.signal ? { signal: options.signal } : {}) },
  );
}

function startV1(configuration: Record<string, unknown> = {}, messageId = crypto.randomUUID()) {
  return {
    message: { messageId, role: "ROLE_USER", parts: [{ text: "restock aisle 5" }] },
    metadata: { storeId: "store-001" },
    configuration,
  };
}

/** POST …/message:send through the fetch adapter (the HTTP+JSON binding). */
function httpJson(h: Harness, body: string) {
  return toFetchHandler(h.handler)(
    new Request("http://test/api/v1/a2a/message:send", {
      method: "POST",
      headers: { authorization: "Bearer partner-a", "content-type": "application/json" },
      body,
    }),
  );
}

describe("SendMessage", () => {
  it.each(["SendMessage", "message/send"])("%s answers the task once it has ended (v0.3)", async (method) => {
    const h = harness();
    const res = await send(h, startParams("restock aisle 5", "m-1"), { method });
    expect(res.status).toBe(200);
    const { result } = await res.json();
    expect(result).toMatchObject({ kind: "task", status: { state: "completed" }, metadata: { messageId: "m-1" } });
    expect(result.history[0].parts).toEqual([{ kind: "text", text: "restock aisle 5" }]);
    expect(h.executor.dispatched).toBe(1);
  });

  it("answers with the ended task from memory, and a GetTask after it too: no read of the store", async () => {
    const h = harness();
    let reads = 0;
    const get = h.stores.tasks.get.bind(h.stores.tasks);
    h.stores.tasks.get = (...args) => {
      reads++;
      return get(...args);
    };
    const { result } = await (await send(h, startParams("restock aisle 5", "m-memory"))).json();
    expect(result.status.state).toBe("completed");
    const polled = await h.rpc("GetTask", { id: result.id });
    expect(polled.body.result.status.state).toBe("completed");
    expect(reads).toBe(0);
  });

  it("answers a v1.0 SendMessageResponse ({ task }), and over HTTP+JSON the same", async () => {
    const h = harness();
    const rpc = await (await send(h, startV1(), { v1: true })).json();
    expect(TaskV1.parse(rpc.result.task).status.state).toBe("TASK_STATE_COMPLETED");
    const rest = await httpJson(h, JSON.stringify(startV1({ historyLength: 0 })));
    expect(rest.status).toBe(200);
    const body = await rest.json();
    expect(TaskV1.parse(body.task).status.state).toBe("TASK_STATE_COMPLETED");
    expect(body.task).not.toHaveProperty("history");
  });

  it("answers at once with returnImmediately (v1.0) or blocking: false (v0.3); the task goes on", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true));
    const v1 = await (await send(h, startV1({ returnImmediately: true }), { v1: true })).json();
    expect(v1.result.task.status.state).toBe("TASK_STATE_WORKING");
    const v03 = await (await send(h, { ...startParams(), configuration: { blocking: false } })).json();
    expect(v03.result.status.state).toBe("working");
    for (let i = 0; i < 6; i++) await h.executor.release();
    await waitFor(async () => (await h.rpc("GetTask", { id: v03.result.id })).body.result.status.state === "completed");
  });

  it("answers when the task asks for input, with the question in its status", async () => {
    const ask = [{ kind: "status" as const, state: "TASK_STATE_INPUT_REQUIRED" as const, message: "Which aisle?" }];
    const h = harness(new ScriptedExecutor(ask, undefined, true));
    const answer = send(h, startParams());
    await h.executor.release();
    const { result } = await (await answer).json();
    expect(result.status.state).toBe("input-required");
    expect(result.status.message.parts).toEqual([{ kind: "text", text: "Which aisle?" }]);
  });

  it("waits at most methods.sendMessage.maxWaitMs, then answers the task as it stands", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true), {
      methods: { sendMessage: { maxWaitMs: 50 } },
    });
    const started = Date.now();
    const { result } = await (await send(h, startParams())).json();
    expect(result.status.state).toBe("working");
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("keeps the task when the client goes away while it waits", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true));
    const abort = new AbortController();
    const answer = send(h, startParams("restock aisle 5", "m-gone"), { signal: abort.signal }).catch(() => undefined);
    await waitFor(() => h.executor.dispatched === 1);
    abort.abort();
    for (let i = 0; i < 3; i++) await h.executor.release();
    const id = h.executor.contexts[0]?.taskId as string;
    await waitFor(async () => (await h.rpc("GetTask", { id })).body.result.status.state === "completed");
    await answer;
  });

  it("is idempotent with SendStreamingMessage: a retry by either method gets the same task, run once", async () => {
    const h = harness();
    const streamed = await readFrames(await h.stream(startParams("x", "m-2")));
    const { result } = await (await send(h, startParams("x", "m-2"))).json();
    expect(result.id).toBe(streamed[0]?.result.id);
    expect(result.status.state).toBe("completed");
    const again = await (await send(h, startParams("x", "m-2"))).json();
    expect(again.result.id).toBe(result.id);
    expect(h.executor.dispatched).toBe(1);
  });

  it("checks its params like a streaming start, and historyLength", async () => {
    const h = harness();
    const noText = await (await send(h, { ...startParams(), message: { role: "user", parts: [] } })).json();
    expect(noText.error.code).toBe(-32602);
    const negative = await (await send(h, { ...startParams(), configuration: { historyLength: -1 } })).json();
    expect(negative.error).toMatchObject({ code: -32602, message: expect.stringContaining("historyLength") });
    expect(h.executor.dispatched).toBe(0);
  });

  it("turned off (methods.sendMessage: false) answers -32004 on every name and binding, body unread", async () => {
    const h = harness(undefined, { methods: { sendMessage: false } });
    for (const method of ["SendMessage", "message/send"]) {
      const { error } = await (await send(h, startParams(), { method })).json();
      expect(error.code).toBe(-32004);
    }
    const rest = await httpJson(h, "{not json");
    expect(rest.status).toBe(400);
    expect((await rest.json()).error.details[0].reason).toBe("UNSUPPORTED_OPERATION");
    expect(h.executor.dispatched).toBe(0);
  });
});

/** Asks which aisle, then restocks the aisle the caller names (a multi-turn executor). */
class AskingExecutor implements TaskExecutor {
  readonly replies: Message[] = [];
  async execute(context: TaskExecutionContext): Promise<TaskOutcome> {
    await context.emit({ kind: "status", state: "TASK_STATE_INPUT_REQUIRED", message: "Which aisle?" });
    const reply = await context.nextMessage();
    this.replies.push(reply);
    const aisle = reply.parts.map((part) => part.text ?? "").join("");
    return { state: "TASK_STATE_COMPLETED", message: `Restocked aisle ${aisle}` };
  }
}

function followUp(taskId: string, text: string, messageId = crypto.randomUUID(), extra: Record<string, unknown> = {}) {
  return { message: { role: "user", taskId, messageId, parts: [{ kind: "text", text }], ...extra } };
}

describe("multi-turn: a message with message.taskId", () => {
  it("answers a task that asked for input: its executor gets the message, once, and the history has both turns", async () => {
    const executor = new AskingExecutor();
    const h = harness(executor as unknown as ScriptedExecutor);
    const asked = (await (await send(h, startParams("restock", "m-a"))).json()).result;
    expect(asked.status).toMatchObject({ state: "input-required", message: { parts: [{ text: "Which aisle?" }] } });
    const reply = followUp(asked.id, "5", "m-b");
    const done = (await (await send(h, reply)).json()).result;
    expect(done.status.state).toBe("completed");
    expect(done.contextId).toBe(asked.contextId);
    expect(done.history.map((m: MessageV03) => [m.role, m.parts[0]])).toEqual([
      ["user", { kind: "text", text: "restock" }],
      ["agent", { kind: "text", text: "Which aisle?" }],
      ["user", { kind: "text", text: "5" }],
      ["agent", { kind: "text", text: "Restocked aisle 5" }],
    ]);
    // A retry of the follow-up answers the task and hands nothing over again.
    const again = (await (await send(h, reply)).json()).result;
    expect(again.id).toBe(asked.id);
    expect(executor.replies).toHaveLength(1);
  });

  it("over a stream too: SendStreamingMessage with taskId streams the rest of the task", async () => {
    const h = harness(new AskingExecutor() as unknown as ScriptedExecutor);
    const asked = (await (await send(h, startParams("restock"))).json()).result;
    const frames = await readFrames(
      await h.call({ jsonrpc: "2.0", id: 2, method: "SendStreamingMessage", params: followUp(asked.id, "7") }),
    );
    expect(frames.map((f) => f.event)).toEqual(["task", "finished", "final"]);
    expect(frames.at(-1)?.result.status.message.parts[0].text).toBe("Restocked aisle 7");
  });

  it("refuses an unknown task (-32001), an ended one (-32004), another context (-32602), a working one (-32004)", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true));
    expect((await (await send(h, followUp("no-such-task", "5"))).json()).error.code).toBe(-32001);
    const working = (await (await send(h, { ...startParams(), configuration: { blocking: false } })).json()).result;
    const busy = (await (await send(h, followUp(working.id, "5"))).json()).error;
    expect(busy).toMatchObject({ code: -32004, data: { state: "working" } });
    const other = (await (await send(h, followUp(working.id, "5", undefined, { contextId: "ctx-x" }))).json()).error;
    expect(other).toMatchObject({ code: -32602, message: expect.stringContaining("params.message.contextId") });
    for (let i = 0; i < 3; i++) await h.executor.release();
    await waitFor(async () => (await h.rpc("GetTask", { id: working.id })).body.result.status.state === "completed");
    const ended = (await (await send(h, followUp(working.id, "5"))).json()).error;
    expect(ended).toMatchObject({ code: -32004, data: { state: "completed" } });
  });

  it("starts a new task in an existing context, and turned off (continueTask: false) refuses any taskId", async () => {
    const h = harness(undefined, { methods: { continueTask: false } });
    const first = (await (await send(h, startParams("one"))).json()).result;
    const second = await (
      await send(h, { ...startParams("two"), message: { ...startParams("two").message, contextId: first.contextId } })
    ).json();
    expect(second.result.contextId).toBe(first.contextId);
    expect(second.result.id).not.toBe(first.id);
    expect((await (await send(h, followUp(first.id, "5"))).json()).error.code).toBe(-32004);
  });
});
