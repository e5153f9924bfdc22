import { randomBytes } from "node:crypto";
import { applyTaskEvent, type NewTask, type StoredTaskEvent, type Task } from "@a2a-partner/a2a-core";
import { fromV03Task, type TaskV03, toV03Task } from "@a2a-partner/a2a-core/protocol";
import { must, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { describe, expect, it } from "vitest";
import { createPostgresStores } from "../src/index.js";
import { migratedStoresPerSuite } from "./support/migrated-backend.js";

const kinds = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

/** A partner's first message of ~16 KiB of text that does not compress away (TOAST compresses). */
function withLargeMessage(input: NewTask): NewTask {
  const [first] = input.task.history;
  const text = randomBytes(16_000).toString("base64").slice(0, 16_000);
  return { ...input, task: { ...input.task, history: [{ ...must(first), parts: [{ text }] }] } };
}

describe.each(kinds)("a task's first message is written once (%s)", (kind) => {
  const { newTask, update, finished } = storeFixtures();
  const workspaceId = crypto.randomUUID();
  const suite = migratedStoresPerSuite(kind, "first_message");

  /** What the row keeps beside the message: the stored sizes of its documents, in bytes. */
  async function storedSizes(taskId: string): Promise<{ snapshot: number; first: number; event1: number }> {
    const { rows } = await suite.backend.db.query<{ snapshot: number; first: number; event1: number }>(
      `select pg_column_size(t.snapshot) as snapshot, coalesce(pg_column_size(t.first_message), 0) as first,
              pg_column_size(e.result) as event1
         from tasks t join task_events e on e.task_id = t.id and e.seq = 1 where t.id = $1`,
      [taskId],
    );
    return must(rows[0]);
  }

  it("keeps the snapshot and the seq-1 event without it, and every read returns the whole task", async () => {
    const input = withLargeMessage(newTask(workspaceId, { lease: { owner: "runner-a", durationMs: -1 } }));
    const messageId = crypto.randomUUID();
    const started = await suite.stores.idempotency.createOrGet(messageId, input);
    expect(started.record.task).toEqual(input.task);
    let task: Task = input.task;
    const events: StoredTaskEvent[] = [];
    for (let seq = 2; seq <= 4; seq++) {
      const event = { taskId: task.id, seq, ...update(task, seq * 10) };
      const before = task;
      task = applyTaskEvent(task, event.result);
      events.push(event);
      expect(
        await suite.stores.events.appendNumbered({
          taskId: task.id,
          prevSeq: seq - 1,
          events: [event],
          snapshot: task,
        }),
      ).toBe(true);
      expect(before.history).toHaveLength(1);
    }
    // A writer that does not run the task (a cancel, the orphan sweep) reads the row and writes it back.
    const end = must(await suite.stores.events.append(task.id, finished(task)));
    task = applyTaskEvent(task, end.result as Parameters<typeof applyTaskEvent>[1]);

    // The message is stored once: the row's snapshot and the seq-1 event are a few hundred bytes.
    const sizes = await storedSizes(task.id);
    expect(sizes.first).toBeGreaterThan(10_000);
    expect(sizes.snapshot).toBeLessThan(2_000);
    expect(sizes.event1).toBeLessThan(2_000);

    // Every read returns exactly the task as the runner has it.
    expect(task.history).toHaveLength(2);
    expect(must(await suite.stores.tasks.get(workspaceId, task.id)).task).toEqual(task);
    expect(must(await suite.stores.idempotency.get(workspaceId, messageId)).task).toEqual(task);
    expect((await suite.stores.idempotency.createOrGet(messageId, input)).record.task).toEqual(task);
    expect((await suite.stores.tasks.list?.(workspaceId, { pageSize: 10 }))?.tasks).toContainEqual(task);
    const log = await suite.stores.events.readAfter(task.id, 0);
    expect(log.map((event) => event.result)).toEqual([
      { task: input.task },
      ...events.map((e) => e.result),
      end.result,
    ]);
    // A reattach after seq 1 reads no first message it does not need.
    expect((await suite.stores.events.readAfter(task.id, 1)).map((event) => event.seq)).toEqual([2, 3, 4, 5]);
  });

  it("returns a running task whole to the orphan sweep and to a start that rides a group commit", async () => {
    const input = withLargeMessage(newTask(workspaceId, { lease: { owner: "runner-b", durationMs: -60_000 } }));
    const started = must(await suite.stores.events.writer.startTask(input, crypto.randomUUID()));
    expect(started.created).toBe(true);
    expect(started.record.task).toEqual(input.task);
    expect((await storedSizes(input.task.id)).snapshot).toBeLessThan(2_000);
    const orphans = await suite.stores.tasks.listOrphaned(1_000);
    expect(orphans.find((record) => record.task.id === input.task.id)?.task).toEqual(input.task);
  });

  it("reads and moves a row written whole (by an earlier release) as before", async () => {
    const input = withLargeMessage(newTask(workspaceId));
    // The previous release's start: the whole task (in v0.3's shape) in the snapshot and in the seq-1
    // event, no first_message.
    const stored = JSON.stringify(toV03Task(input.task));
    await suite.backend.db.query(
      `insert into tasks (id, workspace_id, context_id, snapshot, state, terminal, last_seq, lease_owner,
                          lease_expires_at, created_at, updated_at)
       values ($1, $2, $3, $4::jsonb, 'working', false, 1, 'runner-a', now() + interval '1 hour', $5, $5)`,
      [input.task.id, workspaceId, input.task.contextId, stored, input.createdAt],
    );
    await suite.backend.db.query(
      "insert into task_events (task_id, seq, event, result, created_at) values ($1, 1, 'task', $2::jsonb, $3)",
      [input.task.id, stored, input.createdAt],
    );
    const event = { taskId: input.task.id, seq: 2, ...update(input.task, 50) };
    const moved = applyTaskEvent(input.task, event.result);
    expect(
      await suite.stores.events.appendNumbered({ taskId: moved.id, prevSeq: 1, events: [event], snapshot: moved }),
    ).toBe(true);
    const end = must(await suite.stores.events.append(moved.id, finished(moved)));
    const task = applyTaskEvent(moved, end.result as Parameters<typeof applyTaskEvent>[1]);
    expect(must(await suite.stores.tasks.get(workspaceId, task.id)).task).toEqual(task);
    expect((await suite.stores.events.readAfter(task.id, 0))[0]?.result).toEqual({ task: input.task });
    expect((await storedSizes(task.id)).first).toBe(0);
  });

  it("never sends the first message again with an event (only the start's statement carries it)", async () => {
    const sent: string[] = [];
    const db = suite.backend.db;
    // The same database, with every statement's parameters noted: what the writer sends for each commit.
    const watched = Object.assign(Object.create(Object.getPrototypeOf(db)), db, {
      query: (sql: string, params?: readonly unknown[], options?: object) => {
        sent.push(JSON.stringify(params ?? []));
        return db.query(sql, params, options);
      },
    }) as typeof db;
    const stores = createPostgresStores(watched);
    try {
      const input = withLargeMessage(newTask(workspaceId));
      const text = (must(input.task.history[0]).parts[0] as { text: string }).text;
      await stores.tasks.create(input);
      const startStatements = sent.length;
      const event = { taskId: input.task.id, seq: 2, ...update(input.task, 30) };
      const moved = applyTaskEvent(input.task, event.result);
      expect(
        await stores.events.appendNumbered({ taskId: moved.id, prevSeq: 1, events: [event], snapshot: moved }),
      ).toBe(true);
      expect(sent.slice(startStatements).some((params) => params.includes(text.slice(0, 64)))).toBe(false);
      expect(must(await stores.tasks.get(workspaceId, moved.id)).task).toEqual(moved);
    } finally {
      await stores.events.close();
    }
  });

  it("keeps the message when an instance of the previous release writes the row back", async () => {
    const input = withLargeMessage(newTask(workspaceId));
    await suite.stores.tasks.create(input);
    // The previous release's locked append: the snapshot it reads (v0.3's shape), the event applied,
    // written back whole in that shape.
    const { rows } = await suite.backend.db.query<{ snapshot: TaskV03 }>("select snapshot from tasks where id = $1", [
      input.task.id,
    ]);
    const progress = update(input.task, 70);
    await suite.backend.db.query(
      "update tasks set snapshot = $2::jsonb, last_seq = 2, updated_at = now() where id = $1",
      [input.task.id, JSON.stringify(toV03Task(applyTaskEvent(fromV03Task(must(rows[0]).snapshot), progress.result)))],
    );
    const expected = applyTaskEvent(input.task, progress.result);
    expect(must(await suite.stores.tasks.get(workspaceId, input.task.id)).task).toEqual(expected);
  });
});
