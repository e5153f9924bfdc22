import { http } from "msw";
import { describe, expect, it } from "vitest";
import { ENDPOINT, jsonRpcResultResponse, sseResponse, task, toV1Message, toV1Task } from "../test/support/fixtures.js";
import { mockEndpoint, testClient } from "../test/support/mock-endpoint.js";
import { A2AClientError, type Message, UnsupportedOperationError } from "./index.js";
import type { TaskStreamEvent } from "./stream/events.js";

// The client's reading of SendMessage answers (a Task or the agent's Message) and of a streaming start the
// agent answered with one unnamed message frame, in both dialects and over HTTP+JSON.
const { server, script } = mockEndpoint();

const reply: Message = {
  kind: "message",
  role: "agent",
  messageId: "reply-1",
  contextId: "ctx-1",
  parts: [{ kind: "text", text: "Direct message response" }],
};

async function collect(stream: AsyncIterable<TaskStreamEvent>): Promise<TaskStreamEvent[]> {
  const events: TaskStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** The one frame of a reply stream: no `event:` line, no id (SSE's default "message" event). */
function replyFrame(result: unknown): string {
  return `data: ${JSON.stringify({ jsonrpc: "2.0", id: "rpc-1", result })}\n\n`;
}

describe("sendMessage", () => {
  it("v0.3: a Task answer is { kind: 'task' }, a Message answer { kind: 'message' }", async () => {
    const seen = script((n) => jsonRpcResultResponse(n === 0 ? task("task-1", "completed") : reply));
    const { client } = testClient();
    expect(await client.sendMessage({ text: "Restock aisle 5", storeId: "store-001" })).toEqual({
      kind: "task",
      task: task("task-1", "completed"),
    });
    expect(await client.sendMessage({ text: "hi", storeId: "store-001", historyLength: 0 })).toEqual({
      kind: "message",
      message: reply,
    });
    expect(seen.map((r) => r.method)).toEqual(["SendMessage", "SendMessage"]);
    expect(seen[0]?.params).not.toHaveProperty("configuration");
    expect(seen[1]?.params.configuration).toEqual({ historyLength: 0 });
  });

  it("v0.3: returnImmediately is sent as blocking: false", async () => {
    const seen = script(() => jsonRpcResultResponse(task("task-1", "submitted")));
    const { client } = testClient();
    const result = await client.sendMessage({ text: "hi", storeId: "store-001", returnImmediately: true });
    expect(result.kind === "task" && result.task.status.state).toBe("submitted");
    expect(seen[0]?.params.configuration).toEqual({ blocking: false });
  });

  it("v1.0: reads { task } and { message }, and sends returnImmediately by its v1.0 name", async () => {
    const seen = script((n) =>
      jsonRpcResultResponse(
        n === 0 ? { task: toV1Task(task("task-1", "completed")) } : { message: toV1Message(reply) },
      ),
    );
    const { client } = testClient({ protocolVersion: "1.0" });
    const first = await client.sendMessage({ text: "hi", storeId: "store-001", returnImmediately: true });
    expect(first).toEqual({ kind: "task", task: task("task-1", "completed") });
    expect(await client.sendMessage({ text: "hi", storeId: "store-001" })).toEqual({ kind: "message", message: reply });
    expect(seen[0]?.params.configuration).toEqual({ returnImmediately: true });
    expect(seen[0]?.headers.get("a2a-version")).toBe("1.0");
  });

  it("v1.0: an answer that is neither a task nor a message is an InvalidResponseError", async () => {
    script(() => jsonRpcResultResponse({ statusUpdate: {} }));
    const { client } = testClient({ protocolVersion: "1.0" });
    await expect(client.sendMessage({ text: "hi", storeId: "store-001" })).rejects.toThrow(/SendMessageResponse/);
  });

  it("HTTP+JSON: POSTs …/message:send and reads the message", async () => {
    const seen: string[] = [];
    server.use(
      http.post(`${ENDPOINT}/message:send`, async ({ request }) => {
        seen.push(await request.text());
        return Response.json({ message: toV1Message(reply) });
      }),
    );
    const { client } = testClient({ binding: "http+json" });
    expect(await client.sendMessage({ text: "hi", storeId: "store-001", messageId: "m-9" })).toEqual({
      kind: "message",
      message: reply,
    });
    expect(JSON.parse(seen[0] ?? "{}").message.messageId).toBe("m-9");
  });

  it("a server that does not serve SendMessage answers the typed error (-32004)", async () => {
    script(() =>
      Response.json({ jsonrpc: "2.0", id: "x", error: { code: -32004, message: "This operation is not supported" } }),
    );
    const { client } = testClient();
    await expect(client.sendMessage({ text: "hi", storeId: "store-001" })).rejects.toBeInstanceOf(
      UnsupportedOperationError,
    );
  });
});

describe("a streaming start answered with a message", () => {
  it("v0.3: yields one message event; reply resolves, task and finished reject", async () => {
    script(() => sseResponse([replyFrame(reply)], "close"));
    const { client } = testClient();
    const stream = client.sendStreamingMessage({ text: "hi", storeId: "store-001" });
    expect(await collect(stream)).toEqual([{ type: "message", eventId: undefined, message: reply }]);
    expect(await stream.reply).toEqual(reply);
    await expect(stream.finished).rejects.toBeInstanceOf(A2AClientError);
    await expect(stream.task).rejects.toThrow(/answered with a message/);
  });

  it("v1.0: reads the { message } StreamResponse", async () => {
    script(() => sseResponse([replyFrame({ message: toV1Message(reply) })], "close"));
    const { client } = testClient({ protocolVersion: "1.0" });
    const stream = client.sendStreamingMessage({ text: "hi", storeId: "store-001" });
    expect((await collect(stream)).map((e) => e.type)).toEqual(["message"]);
    expect(await stream.reply).toEqual(reply);
  });

  it("an unnamed frame that is not a message is skipped, as before", async () => {
    const frames = [
      replyFrame({ kind: "status-update" }),
      `event: task\nid: 1\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: "r", result: task("task-1") })}\n\n`,
    ];
    script((n) => (n === 0 ? sseResponse(frames, "close") : sseResponse([], "close")));
    const { client } = testClient({ maxResumeAttempts: 0 });
    const stream = client.sendStreamingMessage({ text: "hi", storeId: "store-001" });
    expect(await stream.reply).toBeUndefined();
    expect((await stream.task).id).toBe("task-1");
  });
});
