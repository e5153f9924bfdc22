import { describe, expect, it } from "vitest";
import type { Task } from "../schemas/a2a.js";
import { createInMemoryStores } from "./in-memory.js";

const at = "2026-01-01T00:00:00.000Z";
function task(id: string): Task {
  return {
    kind: "task",
    id,
    contextId: "c",
    status: { state: "working", timestamp: at },
    history: [],
    artifacts: [],
    metadata: { storeId: "s" },
  };
}
const lease = { owner: "me", durationMs: 60_000 };
const finished = (id: string, state: "completed" | "canceled") => ({
  event: "finished" as const,
  createdAt: at,
  result: { kind: "status-update" as const, taskId: id, contextId: "c", status: { state, timestamp: at }, final: true },
});

describe("in-memory stores", () => {
  it("hands out copies: mutating a returned record does not change the store", async () => {
    const { tasks } = createInMemoryStores();
    const created = await tasks.create({ workspaceId: "w", task: task("t"), lease, createdAt: at });
    created.task.status.state = "failed";
    const fetched = await tasks.get("w", "t");
    expect(fetched?.task.status.state).toBe("working");
    if (fetched) fetched.task.history.push({ role: "user", parts: [] } as never);
    expect((await tasks.get("w", "t"))?.task.history).toEqual([]);
  });

  it("numbers events 1..n and accepts exactly one finished however many writers race", async () => {
    const { tasks, events } = createInMemoryStores();
    await tasks.create({ workspaceId: "w", task: task("t"), lease, createdAt: at });
    const results = await Promise.all([
      events.append("t", finished("t", "completed")),
      events.append("t", finished("t", "canceled")),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect((await events.readAfter("t", 0)).map((e) => [e.seq, e.event])).toEqual([
      [1, "task"],
      [2, "finished"],
    ]);
    expect((await tasks.get("w", "t"))?.lastSeq).toBe(2);
  });

  it("tells watchers the newest seq on every append, until they stop watching", async () => {
    const { tasks, events } = createInMemoryStores();
    await tasks.create({ workspaceId: "w", task: task("t"), lease, createdAt: at });
    const seen: (number | undefined)[] = [];
    const stop = events.watch("t", (seq) => seen.push(seq));
    await events.append("t", { ...finished("t", "completed"), event: "update" as const });
    stop();
    await events.append("t", finished("t", "completed"));
    expect(seen).toEqual([2]);
  });

  it("stores a numbered append only while the task is where its runner left it", async () => {
    const { tasks, events } = createInMemoryStores();
    const created = await tasks.create({ workspaceId: "w", task: task("t"), lease, createdAt: at });
    const update = (seq: number) => ({
      taskId: "t",
      prevSeq: seq - 1,
      events: [
        { taskId: "t", seq, event: "update" as const, result: finished("t", "completed").result, createdAt: at },
      ],
      snapshot: created.task,
    });
    await expect(events.appendNumbered(update(2))).resolves.toBe(true);
    // Somebody else wrote seq 3 (a cancel elsewhere): the runner's own seq 3 is refused.
    await events.append("t", finished("t", "canceled"));
    await expect(events.appendNumbered(update(3))).resolves.toBe(false);
    expect((await events.readAfter("t", 0)).map((e) => e.seq)).toEqual([1, 2, 3]);
  });

  it("creates one task per (workspace, messageId)", async () => {
    const { idempotency } = createInMemoryStores();
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        idempotency.createOrGet("m", { workspaceId: "w", task: task(`t${i}`), lease, createdAt: at }),
      ),
    );
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(new Set(results.map((r) => r.record.task.id)).size).toBe(1);
    const other = await idempotency.createOrGet("m", { workspaceId: "w2", task: task("x"), lease, createdAt: at });
    expect(other.created).toBe(true);
  });
});
