import { describe, expect, it } from "vitest";
import type { TaskRecord } from "../../ports/task-records.js";
import type { Task } from "../../protocol/schemas/a2a.js";
import { estimateHeapBytes } from "./heap-estimate.js";
import { TerminalTaskCache } from "./terminal-task-cache.js";

/** An ended task whose data part is `containers` empty arrays: tiny as JSON (3 bytes each), not on the heap. */
function endedTask(id: string, containers: number): TaskRecord {
  const task = {
    id,
    contextId: "ctx",
    status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:00.000Z" },
    history: [
      {
        messageId: `m-${id}`,
        role: "ROLE_USER",
        parts: [{ data: { rows: Array.from({ length: containers }, () => []) } }],
      },
    ],
  } as unknown as Task;
  return {
    workspaceId: "ws",
    task,
    lastSeq: 3,
    lease: null,
    createdAt: "2026-01-01T00:00:00.000Z",
  } as unknown as TaskRecord;
}

const KiB = 1024;

describe("TerminalTaskCache", () => {
  it("estimates tiny containers by what they weigh on the heap, not by their JSON length", () => {
    const record = endedTask("t", 5_000);
    expect(JSON.stringify(record).length).toBeLessThan(16 * KiB);
    expect(estimateHeapBytes(record)).toBeGreaterThan(200 * KiB);
  });

  it("keeps tasks within its byte budget, newest first, however many its count would allow", () => {
    const cache = new TerminalTaskCache({ maxEntries: 10_000, maxBytes: 2 * 1024 * KiB });
    // ~120 KiB each on the heap (under the 128 KiB a single task may take): 50 of them are ~6 MiB.
    const ids = Array.from({ length: 50 }, (_, i) => `t${i}`);
    for (const id of ids) cache.put(endedTask(id, 2_000));
    const kept = ids.filter((id) => cache.get("ws", id) !== undefined);
    expect(cache.bytes).toBeLessThanOrEqual(2 * 1024 * KiB);
    expect(kept.length).toBeGreaterThan(5);
    expect(kept.length).toBeLessThan(20);
    expect(kept).toEqual(ids.slice(-kept.length));
  });

  it("keeps a task over a sixteenth of the budget out, and drops an older copy of it", () => {
    const cache = new TerminalTaskCache({ maxEntries: 10_000, maxBytes: 1024 * KiB });
    cache.put(endedTask("small", 10));
    expect(cache.get("ws", "small")).toBeDefined();
    cache.put(endedTask("small", 5_000)); // the same id, now oversized
    cache.put(endedTask("big", 5_000));
    expect(cache.get("ws", "small")).toBeUndefined();
    expect(cache.get("ws", "big")).toBeUndefined();
  });

  it("answers only the task's own workspace, and keeps nothing when turned off", () => {
    const cache = new TerminalTaskCache({ maxEntries: 10, maxBytes: 1024 * KiB });
    cache.put(endedTask("t", 1));
    expect(cache.get("other", "t")).toBeUndefined();
    const off = new TerminalTaskCache({ maxEntries: 10, maxBytes: 0 });
    off.put(endedTask("t", 1));
    expect(off.get("ws", "t")).toBeUndefined();
  });

  it("forgets an ended task once it is older than its age bound (so a pruned task stops being answered)", async () => {
    const cache = new TerminalTaskCache({ maxEntries: 10, maxBytes: 1024 * KiB, maxAgeMs: 40 });
    const record = endedTask("aged", 1);
    cache.put(record);
    expect(cache.get("ws", "aged")).toBe(record);
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(cache.get("ws", "aged")).toBeUndefined();
  });
});
