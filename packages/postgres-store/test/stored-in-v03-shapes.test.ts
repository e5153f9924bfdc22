import { applyTaskEvent, type NewTask } from "@a2a-partner/a2a-core";
import { must, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { describe, expect, it } from "vitest";
import { migratedStoresPerSuite } from "./support/migrated-backend.js";

const kinds = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

// The tables hold A2A v0.3's shapes, which every earlier release reads (stored-shapes.ts): a start
// written on its own and one that joins a group commit under way (PGlite's writer) store the same.
describe.each(kinds)("a start is stored in v0.3's shapes however it is written (%s)", (kind) => {
  const { newTask, update } = storeFixtures();
  const workspaceId = crypto.randomUUID();
  const suite = migratedStoresPerSuite(kind, "stored_shapes");

  async function storedShapes(taskId: string): Promise<{ snapshot: unknown; event1: unknown; first: unknown }> {
    const { rows } = await suite.backend.db.query<{ snapshot: unknown; event1: unknown; first: unknown }>(
      `select t.snapshot->>'kind' as snapshot, e.result->>'kind' as event1, t.first_message->>'kind' as first
         from tasks t join task_events e on e.task_id = t.id and e.seq = 1 where t.id = $1`,
      [taskId],
    );
    return must(rows[0]);
  }

  /** Starts `input` while another task's append waits for the writer, as under load. */
  async function startBesideAnAppend(input: NewTask): Promise<void> {
    const other = newTask(workspaceId);
    await suite.stores.idempotency.createOrGet(crypto.randomUUID(), other);
    const event = { taskId: other.task.id, seq: 2, ...update(other.task, 50) };
    const appended = suite.stores.events.appendNumbered({
      taskId: other.task.id,
      prevSeq: 1,
      events: [event],
      snapshot: applyTaskEvent(other.task, event.result),
    });
    const started = suite.stores.idempotency.createOrGet(crypto.randomUUID(), input);
    await Promise.all([appended, started]);
  }

  it("alone", async () => {
    const input = newTask(workspaceId);
    await suite.stores.idempotency.createOrGet(crypto.randomUUID(), input);
    expect(await storedShapes(input.task.id)).toEqual({ snapshot: "task", event1: "task", first: "message" });
  });

  it("beside a commit under way, and read back as it was started", async () => {
    const input = newTask(workspaceId);
    await startBesideAnAppend(input);
    expect(await storedShapes(input.task.id)).toEqual({ snapshot: "task", event1: "task", first: "message" });
    expect(must(await suite.stores.tasks.get(workspaceId, input.task.id)).task).toEqual(input.task);
    expect((await suite.stores.events.readAfter(input.task.id, 0)).map((event) => event.result)).toEqual([
      { task: input.task },
    ]);
  });
});
