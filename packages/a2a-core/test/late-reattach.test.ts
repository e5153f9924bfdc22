import { describe, expect, it } from "vitest";
import type { ExecutorUpdate } from "../src/ports/task-executor.js";
import { RECENT_EVENTS } from "../src/runtime/hub/recent-events.js";
import { harnessPerTest, readFrames, ScriptedExecutor, startParams, waitFor } from "./support/handler-harness.js";

// A running task keeps only its newest events in memory: a client reattaching further back than that
// still gets every event it missed, in order, then the live ones, through the handler as a client sees it.

const harness = harnessPerTest();

describe("SubscribeToTask on a running task, further back than its events kept in memory", () => {
  it("replays every missed event from the log, then the newest and the live ones, each once", async () => {
    const updates = RECENT_EVENTS.maxEvents * 2 + 10;
    const steps: ExecutorUpdate[] = Array.from({ length: updates }, (_, i) => ({
      kind: "status",
      message: `step ${i + 1}`,
    }));
    const h = harness(new ScriptedExecutor(steps, { state: "TASK_STATE_COMPLETED", message: "Done" }, true));
    const started = await h.call({ jsonrpc: "2.0", id: "s1", method: "SendStreamingMessage", params: startParams() });
    const [first] = await readFrames(started, 1);
    const taskId = first?.result.id as string;
    for (let i = 0; i < updates; i++) await h.executor.release();
    await waitFor(async () => (await h.stores.events.readAfter(taskId, 0)).length === updates + 1);

    const resumed = await h.call(
      { jsonrpc: "2.0", id: "sub", method: "SubscribeToTask", params: { id: taskId } },
      { headers: { "last-event-id": "1" } },
    );
    const frames = readFrames(resumed);
    await h.executor.release(); // the task ends while (or after) the client catches up
    const seen = await frames;
    const last = updates + 2; // seq 1 is the task, then the updates, then `finished`
    expect(seen.map((f) => Number(f.id))).toEqual(Array.from({ length: last + 1 }, (_, i) => i + 1));
    expect(seen.slice(1, -2).map((f) => f.result.status.message.parts[0].text)).toEqual(
      steps.map((step) => (step as { message: string }).message),
    );
    expect(seen.slice(-2).map((f) => f.event)).toEqual(["finished", "final"]);
  });
});
