import { applyTaskEvent, type TaskRecord } from "@a2a-partner/a2a-core";
import { must, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { describe, expect, it } from "vitest";
import { pruneEndedTasks, startTaskPruning } from "../src/index.js";
import { migratedStoresPerSuite } from "./support/migrated-backend.js";

const kinds = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

const CUTOFF = "2025-06-01T00:00:00.000Z";

describe.each(kinds)("pruneEndedTasks (%s)", (kind) => {
  const old = storeFixtures(Date.UTC(2025, 0, 1));
  const recent = storeFixtures(Date.UTC(2025, 11, 1));
  const workspaceId = crypto.randomUUID();
  const suite = migratedStoresPerSuite(kind, "prune");

  /** A task started with an idempotency key, given `updates` progress events, and ended unless `running`. */
  async function task(
    fixtures: typeof old,
    updates: number,
    running = false,
  ): Promise<{ record: TaskRecord; messageId: string }> {
    const messageId = crypto.randomUUID();
    const { record } = await suite.stores.idempotency.createOrGet(messageId, fixtures.newTask(workspaceId));
    let snapshot = record.task;
    for (let i = 0; i < updates; i++) {
      const event = fixtures.update(snapshot, i);
      await suite.stores.events.append(snapshot.id, event);
      snapshot = applyTaskEvent(snapshot, event.result);
    }
    if (!running) must(await suite.stores.events.append(snapshot.id, fixtures.finished(snapshot)));
    return { record: must(await suite.stores.tasks.get(workspaceId, snapshot.id)), messageId };
  }

  async function eventCount(taskId: string): Promise<number> {
    return (await suite.stores.events.readAfter(taskId, 0)).length;
  }

  it("deletes exactly the tasks that ended before the cutoff, with their events and keys, in batches", async () => {
    const doomed = [await task(old, 0), await task(old, 2), await task(old, 1), await task(old, 3), await task(old, 0)];
    const runningSinceLongAgo = await task(old, 2, true);
    const endedRecently = await task(recent, 1);

    const dry = await pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF, dryRun: true });
    // 5 starts, 6 updates and 5 ends.
    expect(dry).toEqual({ endedBefore: CUTOFF, tasks: 5, events: 16, batches: 0, dryRun: true });
    expect(await eventCount(must(doomed[0]).record.task.id)).toBe(2);

    const pruned = await pruneEndedTasks(suite.backend.db, { endedBefore: new Date(CUTOFF), batchSize: 2 });
    expect(pruned).toEqual({ endedBefore: CUTOFF, tasks: 5, events: 16, batches: 3, dryRun: false });
    for (const { record, messageId } of doomed) {
      expect(await suite.stores.tasks.get(workspaceId, record.task.id)).toBeUndefined();
      expect(await eventCount(record.task.id)).toBe(0);
      expect(await suite.stores.idempotency.get(workspaceId, messageId)).toBeUndefined();
    }
    for (const kept of [runningSinceLongAgo, endedRecently]) {
      expect(await suite.stores.tasks.get(workspaceId, kept.record.task.id)).toEqual(kept.record);
      expect(await eventCount(kept.record.task.id)).toBe(kept.record.lastSeq);
      expect((await suite.stores.idempotency.get(workspaceId, kept.messageId))?.task.id).toBe(kept.record.task.id);
    }
    expect((await suite.stores.tasks.list?.(workspaceId, { pageSize: 10 }))?.totalSize).toBe(2);

    // Nothing left before the cutoff: a second run deletes nothing.
    expect(await pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF })).toMatchObject({ tasks: 0, batches: 0 });
  });

  it("shares the work between pruners running at once, deleting each task once", async () => {
    for (let i = 0; i < 12; i++) await task(old, 1);
    const results = await Promise.all(
      [1, 2, 3].map(() => pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF, batchSize: 2 })),
    );
    expect(results.reduce((sum, result) => sum + result.tasks, 0)).toBe(12);
    expect(results.reduce((sum, result) => sum + result.events, 0)).toBe(36);
    expect(await pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF, dryRun: true })).toMatchObject({ tasks: 0 });
  });

  it("refuses a cutoff or a batch size it cannot read, before deleting anything", async () => {
    const kept = await task(old, 0);
    await expect(pruneEndedTasks(suite.backend.db, { endedBefore: "last tuesday" })).rejects.toThrow(TypeError);
    await expect(pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF, batchSize: 0 })).rejects.toThrow(/batchSize/);
    await expect(pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF, batchSize: 1.5 })).rejects.toThrow(
      /batchSize/,
    );
    expect(await suite.stores.tasks.get(workspaceId, kept.record.task.id)).toEqual(kept.record);
  });

  it("keeps an ended task while a push delivery of it is pending, and prunes it once that is given up", async () => {
    // What the earlier tests left before the cutoff goes first; a claim here then sees only this task's.
    await pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF });
    const input = old.newTask(workspaceId);
    await suite.stores.tasks.create({
      ...input,
      pushConfigs: [
        { id: "hook", taskId: input.task.id, url: "https://r.example/", version: "1.0", createdAt: CUTOFF },
      ],
    });
    must(await suite.stores.events.append(input.task.id, old.finished(input.task)));
    const doomed = await task(old, 0); // the same age, no configs

    expect(await pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF, dryRun: true })).toMatchObject({ tasks: 1 });
    expect(await pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF })).toMatchObject({ tasks: 1, events: 2 });
    expect(await suite.stores.tasks.get(workspaceId, doomed.record.task.id)).toBeUndefined();
    expect(await suite.stores.tasks.get(workspaceId, input.task.id)).toBeDefined();

    // Delivered (seq 1) and given up (seq 2): nothing pending, the task and its record of it go.
    const deliveries = suite.stores.push.deliveries;
    const [first] = await deliveries.claim("pruner-test", 10, 60_000);
    const second = must(await deliveries.complete("pruner-test", must(first), 60_000));
    await deliveries.giveUp("pruner-test", second, "gone");
    expect(await pruneEndedTasks(suite.backend.db, { endedBefore: CUTOFF })).toMatchObject({ tasks: 1, events: 2 });
    expect(await suite.stores.tasks.get(workspaceId, input.task.id)).toBeUndefined();
    const { rows } = await suite.backend.db.query<{ n: number }>(
      "select (select count(*) from push_configs) + (select count(*) from push_deliveries) as n",
    );
    expect(Number(rows[0]?.n)).toBe(0);
  });

  it("prunes on a timer with startTaskPruning, says what it deleted, and stops when told", async () => {
    const doomed = await task(old, 1);
    const kept = await task(recent, 0);
    const pruned: number[] = [];
    // A retention that reaches back to CUTOFF: the old fixtures' task goes, the recent one's stays.
    const retentionMs = Date.now() - Date.parse(CUTOFF);
    const job = startTaskPruning(suite.backend.db, {
      retentionMs,
      intervalMs: 50,
      onPruned: (result) => pruned.push(result.tasks),
    });
    try {
      await expect.poll(async () => suite.stores.tasks.get(workspaceId, doomed.record.task.id)).toBeUndefined();
    } finally {
      await job.stop();
    }
    expect(pruned).toEqual([1]);
    expect(await suite.stores.tasks.get(workspaceId, kept.record.task.id)).toBeDefined();
  });
});
