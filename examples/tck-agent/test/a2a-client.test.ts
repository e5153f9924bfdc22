import { A2AClient, type A2AClientOptions, type TaskStreamEvent } from "@a2a-partner/a2a-client";
import { grpcTransport } from "@a2a-partner/a2a-client/grpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedTckAgent, TCK_TOKEN as TOKEN } from "./support/shared-agent.ts";

// Our typed client against the conformance agent, over each binding (JSON-RPC in both dialects,
// HTTP+JSON, gRPC): sendMessage answers a task or, for the kit's message-only prefix, the agent's Message
// (no task); a streaming start the agent answers with a message yields one `message` event.

const agentOf = sharedTckAgent();

const BINDINGS: Array<[string, () => Partial<A2AClientOptions>]> = [
  ["JSON-RPC, v0.3", () => ({ protocolVersion: "0.3" })],
  ["JSON-RPC, v1.0", () => ({ protocolVersion: "1.0" })],
  ["HTTP+JSON", () => ({ binding: "http+json" })],
  ["gRPC", () => ({ binding: "grpc", grpc: grpcTransport(), grpcAddress: agentOf().grpcAddress as string })],
];

const replyId = () => `tck-message-response-${crypto.randomUUID()}`;

describe.each(BINDINGS)("A2AClient against the conformance agent over %s", (_name, options) => {
  let client: A2AClient;
  beforeAll(() => {
    client = new A2AClient({
      agentCardUrl: `${agentOf().url}/.well-known/agent-card.json`,
      token: TOKEN,
      ...options(),
    });
  });
  afterAll(async () => {
    await client?.close();
  });

  it("sendMessage answers the agent's message when it replies without a task", async () => {
    const result = await client.sendMessage({ text: "hi", storeId: "tck", messageId: replyId() });
    expect(result.kind).toBe("message");
    if (result.kind !== "message") return;
    expect(result.message.role).toBe("agent");
    expect(result.message.parts).toEqual([{ kind: "text", text: "Direct message response" }]);
  });

  it("sendMessage waits for the task to end, or answers at once with returnImmediately", async () => {
    const done = await client.sendMessage({
      text: "hi",
      storeId: "tck",
      messageId: `tck-complete-task-${crypto.randomUUID()}`,
    });
    expect(done.kind).toBe("task");
    if (done.kind === "task") expect(done.task.status.state).toBe("completed");
    const at = await client.sendMessage({
      text: "hi",
      storeId: "tck",
      messageId: `test-resubscribe-message-id-${crypto.randomUUID()}`, // works 4 s
      returnImmediately: true,
    });
    expect(at.kind).toBe("task");
    if (at.kind === "task") {
      expect(["submitted", "working"]).toContain(at.task.status.state);
      await client.cancelTask(at.task.id).catch(() => undefined);
    }
  });

  it("a streaming start answered with a message yields one message event; reply resolves, finished rejects", async () => {
    const stream = client.sendStreamingMessage({ text: "hi", storeId: "tck", messageId: replyId() });
    const events: TaskStreamEvent[] = [];
    for await (const event of stream) events.push(event);
    expect(events.map((event) => event.type)).toEqual(["message"]);
    const reply = await stream.reply;
    expect(reply?.parts).toEqual([{ kind: "text", text: "Direct message response" }]);
    await expect(stream.finished).rejects.toThrow(/answered with a message/);
    expect(stream.taskId).toBeUndefined();
  });

  it("a streaming start that makes a task resolves reply with undefined", async () => {
    const stream = client.sendStreamingMessage({
      text: "hi",
      storeId: "tck",
      messageId: `tck-complete-task-${crypto.randomUUID()}`,
    });
    expect(await stream.reply).toBeUndefined();
    expect((await stream.finished).state).toBe("completed");
  });
});
