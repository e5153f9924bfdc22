import { describe, expect, it } from "vitest";
import { toFetchHandler } from "../src/adapters/fetch.js";
import type { AgentReply, ReplyContext } from "../src/ports/task-executor.js";
import { decodeSseStream } from "../src/protocol/sse/decoder.js";
import { type Harness, harnessPerTest, ScriptedExecutor, startParams } from "./support/handler-harness.js";

/** An executor that answers some messages with a message (TaskExecutor.reply) and runs the rest as tasks. */
class ReplyingExecutor extends ScriptedExecutor {
  readonly asked: ReplyContext[] = [];
  async reply(context: ReplyContext): Promise<AgentReply | undefined> {
    this.asked.push(context);
    const text = context.message.parts.map((part) => part.text ?? "").join("");
    return text.startsWith("what") ? { parts: [{ text: "42" }], metadata: { answered: true } } : undefined;
  }
}

const harness = harnessPerTest();

/** Every SSE event of a response: its `event` name and parsed data. */
async function events(response: Response): Promise<Array<{ event: string; data: unknown }>> {
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const out: Array<{ event: string; data: unknown }> = [];
  for await (const event of decodeSseStream(response.body as ReadableStream<Uint8Array>)) {
    out.push({ event: event.event, data: JSON.parse(event.data) });
  }
  return out;
}
const V1 = { "a2a-version": "1.0" };

function v1Params(text: string, messageId = crypto.randomUUID()) {
  return { message: { messageId, role: "ROLE_USER", parts: [{ text }] }, metadata: { storeId: "store-001" } };
}

function httpJson(h: Harness, route: "send" | "stream", text: string) {
  return toFetchHandler(h.handler)(
    new Request(`http://test/api/v1/a2a/message:${route}`, {
      method: "POST",
      headers: { authorization: "Bearer partner-a", "content-type": "application/json" },
      body: JSON.stringify(v1Params(text)),
    }),
  );
}

describe("message replies (TaskExecutor.reply)", () => {
  it("SendMessage answers the message, in each dialect, and stores no task", async () => {
    const h = harness(new ReplyingExecutor());
    const v03 = await h.rpc("SendMessage", startParams("what is the answer?", "q-1"));
    expect(v03.body.result).toMatchObject({
      kind: "message",
      role: "agent",
      parts: [{ kind: "text", text: "42" }],
      metadata: { answered: true },
    });
    expect(v03.body.result.contextId).toEqual(expect.any(String));
    const v1 = await (
      await h.call({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: v1Params("what?") }, { headers: V1 })
    ).json();
    expect(v1.result).toEqual({ message: expect.objectContaining({ role: "ROLE_AGENT", parts: [{ text: "42" }] }) });
    const rest = await httpJson(h, "send", "what now?");
    expect(((await rest.json()) as { message: { role: string } }).message.role).toBe("ROLE_AGENT");
    // Nothing was stored, and nothing ran.
    const listed = await h.rpc("ListTasks", {});
    expect(listed.body.result.tasks).toEqual([]);
    expect(h.executor.dispatched).toBe(0);
  });

  it("SendStreamingMessage answers a stream of that one message, over both bindings", async () => {
    const h = harness(new ReplyingExecutor());
    const rpc = await h.call(
      { jsonrpc: "2.0", id: "s", method: "SendStreamingMessage", params: v1Params("what?") },
      {
        headers: V1,
      },
    );
    const frames = await events(rpc);
    expect(frames).toHaveLength(1);
    // No `event:` line: SSE calls it a `message` event.
    expect(frames[0]).toMatchObject({
      event: "message",
      data: { jsonrpc: "2.0", id: "s", result: { message: { parts: [{ text: "42" }] } } },
    });
    const rest = await events(await httpJson(h, "stream", "what?"));
    expect(rest.map((frame) => frame.data)).toEqual([{ message: expect.objectContaining({ role: "ROLE_AGENT" }) }]);
  });

  it("a message the executor does not answer starts a task as usual; its retry gets the task, not a reply", async () => {
    const executor = new ReplyingExecutor();
    const h = harness(executor);
    const first = await h.rpc("SendMessage", startParams("restock aisle 5", "t-1"));
    expect(first.body.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    const retry = await h.rpc("SendMessage", startParams("restock aisle 5", "t-1"));
    expect(retry.body.result.id).toBe(first.body.result.id);
    expect(executor.asked).toHaveLength(1);
    expect(executor.dispatched).toBe(1);
  });
});
