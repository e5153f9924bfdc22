import { describe, expect, it } from "vitest";
import { EnvironmentContext } from "../src/environments/environment-context.js";
import type { TaskExecutionContext } from "../src/ports/task-executor.js";
import { A2A_LIMITS as L } from "../src/protocol/limits.js";
import { harnessPerTest, readFrames, ScriptedExecutor, waitFor } from "./support/handler-harness.js";

const harness = harnessPerTest();

/** `[x,x,…]` as long as fits in `bytes` of JSON: the heaviest shape a parse can give that many bytes. */
function tinyContainers(make: () => unknown, bytes: number): unknown[] {
  return Array.from({ length: Math.floor((bytes - 1) / 3) }, make);
}

/** A start with its text, data part and metadata at their bounds; data and metadata as tiny containers. */
function startAtBounds(messageId: string) {
  return {
    message: {
      kind: "message",
      role: "user",
      messageId,
      parts: [
        { kind: "text", text: "x".repeat(L.textBytes) },
        { kind: "data", data: { rows: tinyContainers(() => ({}), L.partContentBytes - 64) } },
      ],
      metadata: { tags: tinyContainers(() => [], L.metadataBytes - 128) },
    },
    metadata: { storeId: "store-001" },
  };
}

/**
 * A running task holds such a message as its JSON text, not as the ~0.6 MiB of objects it parses into
 * (runtime/hub/compact-message.ts): everything that reads it must still see the message as it was sent.
 */
describe("a task started at the request bounds", () => {
  it("is seen as it was sent by its executor, GetTask, SubscribeToTask and a retry, running and ended", async () => {
    const h = harness(new ScriptedExecutor(undefined, undefined, true));
    const params = startAtBounds("m-bounds");
    const sent = { ...params.message };
    const first = await readFrames(await h.call({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params }), 1);
    const taskId = first[0]?.result.id as string;
    const asStored = { ...sent, taskId, contextId: first[0]?.result.contextId };
    expect(first[0]?.result.history).toEqual([asStored]);

    await waitFor(() => h.executor.dispatched === 1);
    const context = h.executor.contexts[0];
    // The executor gets it in the model (A2A v1.0): the same content, parts without `kind`.
    const [text, data] = params.message.parts;
    const inModel = {
      messageId: sent.messageId,
      contextId: asStored.contextId,
      taskId,
      role: "ROLE_USER",
      parts: [{ text: text?.text }, { data: data?.data }],
      metadata: sent.metadata,
    };
    expect(context?.message).toEqual(inModel);
    expect(context?.task.history).toEqual([inModel]);
    // The Environment layer reads the same text from it.
    expect(new EnvironmentContext(context as TaskExecutionContext).text).toBe(params.message.parts[0]?.text);

    // Running: answered from the memory of the task this handler runs.
    expect((await h.rpc("GetTask", { id: taskId })).body.result.history).toEqual([asStored]);
    const resubscribed = readFrames(
      await h.call({ jsonrpc: "2.0", id: 2, method: "SubscribeToTask", params: { id: taskId } }),
    );
    // A retry of the start (same messageId, same message) reattaches to the task: nothing runs twice.
    const retried = readFrames(
      await h.call({ jsonrpc: "2.0", id: 3, method: "SendStreamingMessage", params: startAtBounds("m-bounds") }),
    );

    for (let step = 0; step < 3; step++) await h.executor.release();
    for (const frames of [await resubscribed, await retried]) {
      expect(frames[0]?.result).toMatchObject({ id: taskId, history: [asStored] });
      expect(frames.at(-1)?.event).toBe("final");
      expect(frames.at(-1)?.result.history[0]).toEqual(asStored);
    }
    expect(h.executor.dispatched).toBe(1);
    // Ended: answered from the ended tasks kept in memory.
    const ended = (await h.rpc("GetTask", { id: taskId })).body.result;
    expect(ended.status.state).toBe("completed");
    expect(ended.history[0]).toEqual(asStored);
  });
});
