import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { type A2AStores, applyTaskEvent, type NewTaskEvent, type StoredTaskEvent } from "../../src/index.js";
import { defineListTasksCases } from "./list-tasks-cases.js";
import { HOUR_MS, must, type StoreFixtures, within } from "./store-fixtures.js";

/**
 * The stores of one implementation under test. `otherStores` is a second instance over the same data
 * (another process's view); an implementation that has only one instance passes the same stores twice.
 */
export interface StoreContractContext {
  stores: A2AStores;
  otherStores: A2AStores;
  workspaceA: string;
  workspaceB: string;
  fixtures: StoreFixtures;
}

const FAR_FUTURE = "2100-01-01T00:00:00.000Z";

/**
 * What every TaskStore, EventLog and IdempotencyStore must do, whatever keeps the data: the in-memory
 * stores and the PostgreSQL/PGlite stores run these same cases. Call it inside a describe whose
 * beforeAll fills the context.
 */
export function defineStoreContractCases(current: () => StoreContractContext): void {
  describe("TaskStore", () => {
    it("creates a task with its seq-1 task event and gets it back", async () => {
      const { stores, workspaceA, fixtures } = current();
      const input = fixtures.newTask(workspaceA);
      const before = Date.now();
      const record = await stores.tasks.create(input);
      expect(record).toEqual({
        workspaceId: input.workspaceId,
        task: input.task,
        lastSeq: 1,
        lease: { owner: "runner-a", expiresAt: expect.any(String) },
        createdAt: input.createdAt,
      });
      // The lease runs from the store's clock (here on the same machine as the test's).
      const expiresAt = Date.parse(record.lease?.expiresAt ?? "");
      expect(expiresAt).toBeGreaterThanOrEqual(before + HOUR_MS - 2_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + HOUR_MS + 2_000);
      expect(await stores.tasks.get(workspaceA, input.task.id)).toEqual(record);
      const events = await stores.events.readAfter(input.task.id, 0);
      expect(events).toEqual([
        { taskId: input.task.id, seq: 1, event: "task", result: input.task, createdAt: input.createdAt },
      ]);
    });

    it("hides a task from another workspace and answers unknown or malformed ids with undefined", async () => {
      const { stores, workspaceA, workspaceB, fixtures } = current();
      const input = fixtures.newTask(workspaceA);
      await stores.tasks.create(input);
      expect(await stores.tasks.get(workspaceB, input.task.id)).toBeUndefined();
      expect(await stores.tasks.get(workspaceA, randomUUID())).toBeUndefined();
      expect(await stores.tasks.get(workspaceA, "not-a-uuid")).toBeUndefined();
      expect(await stores.tasks.get("'; drop table tasks; --", input.task.id)).toBeUndefined();
    });

    it("refuses a second task with the same id and leaves the first one's log alone", async () => {
      const { stores, workspaceA, fixtures } = current();
      const input = fixtures.newTask(workspaceA);
      await stores.tasks.create(input);
      await expect(stores.tasks.create({ ...input, createdAt: fixtures.clock() })).rejects.toThrow();
      expect(await stores.events.readAfter(input.task.id, 0)).toHaveLength(1);
    });

    it("lists orphaned tasks (live, lease expired by the store's clock) oldest first, renews only the owner's live leases", async () => {
      const { stores, workspaceA, workspaceB, fixtures } = current();
      const lease = (owner: string, durationMs: number) => ({ lease: { owner, durationMs } });
      const orphanA = await stores.tasks.create(fixtures.newTask(workspaceA, lease("runner-a", -60_000)));
      const healthy = await stores.tasks.create(fixtures.newTask(workspaceA, lease("runner-a", HOUR_MS)));
      const orphanB = await stores.tasks.create(fixtures.newTask(workspaceB, lease("runner-b", -30_000)));
      const ended = await stores.tasks.create(fixtures.newTask(workspaceA, lease("runner-a", -10_000)));
      await stores.events.append(ended.task.id, fixtures.finished(ended.task));

      const orphaned = await stores.tasks.listOrphaned(10);
      expect(orphaned.map((r) => r.task.id)).toEqual([orphanA.task.id, orphanB.task.id]);
      expect(orphaned[1]).toEqual(orphanB);
      expect((await stores.tasks.listOrphaned(1)).map((r) => r.task.id)).toEqual([orphanA.task.id]);
      // A limit that is no count of rows lists nothing (it never means "all but the last").
      expect(await stores.tasks.listOrphaned(0)).toEqual([]);
      expect(await stores.tasks.listOrphaned(-1)).toEqual([]);
      expect(await stores.tasks.listOrphaned(Number.NaN)).toEqual([]);

      const renewed = await stores.tasks.renewLeases(
        "runner-a",
        [orphanA.task.id, healthy.task.id, orphanB.task.id, ended.task.id, randomUUID(), "junk"],
        HOUR_MS,
      );
      expect(renewed).toEqual([orphanA.task.id, healthy.task.id]);
      const renewedLease = (await stores.tasks.get(workspaceA, orphanA.task.id))?.lease;
      expect(renewedLease?.owner).toBe("runner-a");
      expect(Date.parse(renewedLease?.expiresAt ?? "")).toBeGreaterThan(Date.now() + HOUR_MS - 60_000);
      expect((await stores.tasks.listOrphaned(10)).map((r) => r.task.id)).toEqual([orphanB.task.id]);
      expect(await stores.tasks.renewLeases("runner-a", [], HOUR_MS)).toEqual([]);
      await stores.tasks.renewLeases("runner-b", [orphanB.task.id], HOUR_MS);
    });

    it("orders orphans by the instant they were created, then by id, whatever the timestamps' offsets", async () => {
      const { stores, workspaceA, fixtures } = current();
      const expired = { owner: "runner-c", durationMs: -60_000 };
      // 10:00+02:00 is 08:00Z: earlier than 09:00Z although it sorts after it as text.
      const day = fixtures.clock().slice(0, 10);
      const early = await stores.tasks.create(
        fixtures.newTask(workspaceA, { lease: expired, createdAt: `${day}T10:00:00.000+02:00` }),
      );
      const tied = await Promise.all(
        [0, 1, 2].map(() =>
          stores.tasks.create(fixtures.newTask(workspaceA, { lease: expired, createdAt: `${day}T09:00:00.000Z` })),
        ),
      );
      const ids = [early, ...tied].map((r) => r.task.id);
      const listed = (await stores.tasks.listOrphaned(1000)).map((r) => r.task.id).filter((id) => ids.includes(id));
      expect(listed).toEqual([early.task.id, ...tied.map((r) => r.task.id).sort()]);
      // Every lease renewed: every id comes back, in the order given.
      expect(await stores.tasks.renewLeases("runner-c", ids, HOUR_MS)).toEqual(ids);
    });
  });

  describe("EventLog", () => {
    it("numbers appended events 2, 3, 4 … and applies them to the snapshot", async () => {
      const { stores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const first = await stores.events.append(task.id, fixtures.update(task, 10));
      const second = await stores.events.append(task.id, fixtures.update(task, 60));
      const artifactAt = fixtures.clock();
      const third = await stores.events.append(task.id, {
        event: "update",
        createdAt: artifactAt,
        result: {
          kind: "artifact-update",
          taskId: task.id,
          contextId: task.contextId,
          artifact: { artifactId: "report", parts: [{ kind: "text", text: "aisle 4 done" }] },
        },
      });
      expect([first?.seq, second?.seq, third?.seq]).toEqual([2, 3, 4]);
      expect(third).toMatchObject({ taskId: task.id, event: "update", createdAt: artifactAt });
      const record = await stores.tasks.get(workspaceA, task.id);
      expect(record?.lastSeq).toBe(4);
      expect(record?.task.status).toEqual((must(second).result as { status: unknown }).status);
      expect(record?.task.artifacts).toEqual([
        { artifactId: "report", parts: [{ kind: "text", text: "aisle 4 done" }] },
      ]);
    });

    it("keeps sequence numbers gapless when many writers append at once", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          (i % 2 ? otherStores : stores).events.append(task.id, fixtures.update(task, i)),
        ),
      );
      expect(results.map((e) => e?.seq).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
        Array.from({ length: 12 }, (_, i) => i + 2),
      );
      const log = await stores.events.readAfter(task.id, 0);
      expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
    });

    it("refuses appends once the task is terminal", async () => {
      const { stores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const end = await stores.events.append(task.id, fixtures.finished(task, "canceled"));
      expect(end?.seq).toBe(2);
      expect(await stores.events.append(task.id, fixtures.update(task, 99))).toBeUndefined();
      expect(await stores.events.append(task.id, fixtures.finished(task))).toBeUndefined();
      const record = await stores.tasks.get(workspaceA, task.id);
      expect(record?.lastSeq).toBe(2);
      expect(record?.task.status.state).toBe("canceled");
      // The final status message joins the history (applyTaskEvent).
      expect(record?.task.history.at(-1)?.parts).toEqual([{ kind: "text", text: "canceled" }]);
    });

    it("stores exactly one finished event when several finishers race", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      await stores.events.append(task.id, fixtures.update(task, 50));
      const states = ["completed", "canceled", "failed", "completed", "canceled", "failed"] as const;
      const results = await Promise.all(
        states.map((state, i) => (i % 2 ? otherStores : stores).events.append(task.id, fixtures.finished(task, state))),
      );
      const winners = results.filter((r): r is StoredTaskEvent => r !== undefined);
      expect(winners).toHaveLength(1);
      const log = await stores.events.readAfter(task.id, 0);
      expect(log.filter((e) => e.event === "finished")).toEqual(winners);
      const record = await stores.tasks.get(workspaceA, task.id);
      expect(record?.task.status).toEqual((must(winners[0]).result as { status: unknown }).status);
      expect(record?.lastSeq).toBe(3);
    });

    it("rejects an append to an unknown task", async () => {
      const { stores, workspaceA, fixtures } = current();
      const ghost = fixtures.newTask(workspaceA).task;
      await expect(stores.events.append(ghost.id, fixtures.update(ghost, 1))).rejects.toThrow(/unknown task/);
      await expect(stores.events.append("nope", fixtures.update(ghost, 1))).rejects.toThrow(/unknown task/);
    });

    it("reads after a sequence number, in order, at most limit", async () => {
      const { stores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      for (let i = 0; i < 4; i++) await stores.events.append(task.id, fixtures.update(task, i));
      const read = stores.events.readAfter.bind(stores.events);
      const seqs = async (...args: Parameters<typeof read>) => (await read(...args)).map((e) => e.seq);
      expect(await seqs(task.id, 2)).toEqual([3, 4, 5]);
      expect(await seqs(task.id, 1, 2)).toEqual([2, 3]);
      expect(await read(task.id, 5)).toEqual([]);
      expect(await read(task.id, 0, 0)).toEqual([]);
      expect(await read(randomUUID(), 0)).toEqual([]);
      expect(await read("not-a-uuid", 0)).toEqual([]);
      // Numbers that are no position read from the start; a limit that is no count reads nothing
      // (never "all but the last") or, when it is no number at all, the default page.
      expect(await seqs(task.id, Number.NaN)).toEqual([1, 2, 3, 4, 5]);
      expect(await seqs(task.id, -3)).toEqual([1, 2, 3, 4, 5]);
      expect(await seqs(task.id, 1.5)).toEqual([2, 3, 4, 5]);
      expect(await read(task.id, 0, -1)).toEqual([]);
      expect(await seqs(task.id, 0, 2.7)).toEqual([1, 2]);
      expect(await seqs(task.id, 0, Number.NaN)).toEqual([1, 2, 3, 4, 5]);
    });

    it("stores events numbered by the task's runner, refusing one once somebody else wrote", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const numbered = (seq: number, entry = fixtures.update(task, seq)) => ({
        taskId: task.id,
        prevSeq: seq - 1,
        events: [{ taskId: task.id, seq, ...entry }],
        snapshot: applyTaskEvent(task, entry.result),
      });
      await expect(stores.events.appendNumbered(numbered(2))).resolves.toBe(true);
      // A cancel through another instance takes seq 3; the runner's own seq 3 is refused, not stored.
      await otherStores.events.append(task.id, fixtures.finished(task, "canceled"));
      await expect(stores.events.appendNumbered(numbered(3))).resolves.toBe(false);
      const log = await stores.events.readAfter(task.id, 0);
      expect(log.map((e) => [e.seq, e.event])).toEqual([
        [1, "task"],
        [2, "update"],
        [3, "finished"],
      ]);
      const record = await stores.tasks.get(workspaceA, task.id);
      expect(record?.lastSeq).toBe(3);
      expect(record?.task.status.state).toBe("canceled");
    });

    it("stores several numbered events of one task together, or none of them", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const artifact: NewTaskEvent = {
        event: "update",
        createdAt: fixtures.clock(),
        result: {
          kind: "artifact-update",
          taskId: task.id,
          contextId: task.contextId,
          artifact: { artifactId: "report", parts: [{ kind: "text", text: "done" }] },
        },
      };
      const end = fixtures.finished(task, "completed");
      const snapshot = applyTaskEvent(applyTaskEvent(task, artifact.result), end.result);
      const both = (prevSeq: number) => ({
        taskId: task.id,
        prevSeq,
        events: [
          { taskId: task.id, seq: prevSeq + 1, ...artifact },
          { taskId: task.id, seq: prevSeq + 2, ...end },
        ],
        snapshot,
      });
      // Numbered from the wrong place: refused, and neither event is stored.
      await expect(stores.events.appendNumbered(both(2))).resolves.toBe(false);
      expect(await stores.events.readAfter(task.id, 1)).toEqual([]);
      await expect(stores.events.appendNumbered(both(1))).resolves.toBe(true);
      const log = await otherStores.events.readAfter(task.id, 1);
      expect(log.map((e) => [e.seq, e.event])).toEqual([
        [2, "update"],
        [3, "finished"],
      ]);
      const record = await otherStores.tasks.get(workspaceA, task.id);
      expect(record?.lastSeq).toBe(3);
      expect(record?.task.status.state).toBe("completed");
      expect(record?.task.artifacts.map((a) => a.artifactId)).toEqual(["report"]);
    });

    it("commits concurrent numbered appends of many tasks, each visible to everyone when it resolves", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const tasks = await Promise.all(
        Array.from({ length: 40 }, () => stores.tasks.create(fixtures.newTask(workspaceA))),
      );
      const results = await Promise.all(
        tasks.map(({ task }) => {
          const entry = fixtures.update(task, 50);
          return stores.events.appendNumbered({
            taskId: task.id,
            prevSeq: 1,
            events: [{ taskId: task.id, seq: 2, ...entry }],
            snapshot: applyTaskEvent(task, entry.result),
          });
        }),
      );
      expect(results).toEqual(Array(40).fill(true));
      // Read through the other instance: what resolved is stored for everyone.
      for (const { task } of tasks) {
        expect((await otherStores.events.readAfter(task.id, 1)).map((e) => e.seq)).toEqual([2]);
        expect((await otherStores.tasks.get(workspaceA, task.id))?.lastSeq).toBe(2);
      }
    });

    it("tells a watcher about an append made through another instance, and only then", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const told: Array<number | undefined> = [];
      let stop = () => {};
      const changed = new Promise<void>((resolve) => {
        stop = stores.events.watch(task.id, (seq) => {
          told.push(seq);
          resolve();
        });
      });
      await sleep(300);
      expect(told).toEqual([]); // nothing new yet: it really waits
      const appendedAt = Date.now();
      await otherStores.events.append(task.id, fixtures.update(task, 5));
      // A durable store re-reads only every minute here: only a notification can be this fast.
      await within(5_000, changed);
      expect(Date.now() - appendedAt).toBeLessThan(5_000);
      expect(told).toEqual([2]);
      stop();
    });

    it("stops telling a watcher once it stops watching", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const told: Array<number | undefined> = [];
      const stop = stores.events.watch(task.id, (seq) => told.push(seq));
      await sleep(200);
      stop();
      await otherStores.events.append(task.id, fixtures.update(task, 1));
      await sleep(300);
      expect(told).toEqual([]);
    });
  });

  describe("IdempotencyStore", () => {
    it("creates exactly one task for 50 concurrent starts with one messageId", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const messageId = `msg-${randomUUID()}`;
      const inputs = Array.from({ length: 50 }, () => fixtures.newTask(workspaceA));
      const results = await Promise.all(
        inputs.map((input, i) => (i % 2 ? otherStores : stores).idempotency.createOrGet(messageId, input)),
      );
      expect(results.filter((r) => r.created)).toHaveLength(1);
      const ids = new Set(results.map((r) => r.record.task.id));
      expect(ids.size).toBe(1);
      const [taskId] = [...ids] as [string];
      expect(results.every((r) => r.record.messageId === messageId)).toBe(true);
      expect(await stores.events.readAfter(taskId, 0)).toHaveLength(1);
      // The losers' tasks were never stored.
      const losers = inputs.filter((input) => input.task.id !== taskId);
      const stored = await Promise.all(losers.map((input) => stores.tasks.get(workspaceA, input.task.id)));
      expect(stored.filter(Boolean)).toEqual([]);
      expect((await stores.idempotency.get(workspaceA, messageId))?.task.id).toBe(taskId);
    });

    it("answers a created task with the task as given, in an object of its own", async () => {
      const { stores, workspaceA, fixtures } = current();
      const input = fixtures.newTask(workspaceA);
      const sent = structuredClone(input.task);
      const { record, created } = await stores.idempotency.createOrGet(`msg-${randomUUID()}`, input);
      expect(created).toBe(true);
      expect(record.task).toEqual(sent);
      record.task.history.push({ role: "agent", messageId: "m-local", parts: [{ kind: "text", text: "local" }] });
      expect(input.task).toEqual(sent);
    });

    it("returns the original task for a retry even when the new request differs", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const messageId = `msg-${randomUUID()}`;
      const original = await stores.idempotency.createOrGet(messageId, fixtures.newTask(workspaceA));
      await stores.events.append(original.record.task.id, fixtures.update(original.record.task, 30));
      // Another instance's retry: its own runner would hold the lease, but the task stays the original's.
      const retry = fixtures.newTask(workspaceA, { lease: { owner: "runner-retry", durationMs: HOUR_MS } });
      retry.task.history[0] = { role: "user", messageId, parts: [{ kind: "text", text: "something else" }] };
      const again = await otherStores.idempotency.createOrGet(messageId, retry);
      expect(again.created).toBe(false);
      expect(again.record).toEqual(await stores.tasks.get(workspaceA, original.record.task.id));
      expect(again.record.lease?.owner).toBe(original.record.lease?.owner);
      expect(again.record.lastSeq).toBe(2);
      expect(await stores.tasks.get(workspaceA, retry.task.id)).toBeUndefined();
    });

    it("keys by workspace and messageId: another key or another workspace is a new task", async () => {
      const { stores, workspaceA, workspaceB, fixtures } = current();
      const messageId = `msg-${randomUUID()}`;
      const first = await stores.idempotency.createOrGet(messageId, fixtures.newTask(workspaceA));
      const otherKey = await stores.idempotency.createOrGet(`${messageId}-2`, fixtures.newTask(workspaceA));
      const otherWorkspace = await stores.idempotency.createOrGet(messageId, fixtures.newTask(workspaceB));
      expect([first.created, otherKey.created, otherWorkspace.created]).toEqual([true, true, true]);
      expect(new Set([first, otherKey, otherWorkspace].map((r) => r.record.task.id)).size).toBe(3);
      expect(await stores.idempotency.get(workspaceB, `${messageId}-2`)).toBeUndefined();
    });

    it("always creates without a messageId: two key-less starts with the same text are two tasks", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const keyless = () => {
        const input = fixtures.newTask(workspaceA);
        const { messageId: _, ...message } = must(input.task.history[0]);
        input.task.history = [message];
        return input;
      };
      const inputs = [keyless(), keyless()];
      const results = await Promise.all(
        inputs.map((input, i) => (i % 2 ? otherStores : stores).idempotency.createOrGet(undefined, input)),
      );
      expect(results.map((r) => r.created)).toEqual([true, true]);
      expect(results.map((r) => r.record.task.id)).toEqual(inputs.map((input) => input.task.id));
      for (const { record } of results) {
        expect(record.messageId).toBeUndefined();
        expect(await stores.tasks.get(workspaceA, record.task.id)).toEqual(record);
        expect(await stores.events.readAfter(record.task.id, 0)).toHaveLength(1);
      }
    });
  });

  describe("records are copies", () => {
    it("never shares objects with callers, in either direction", async () => {
      const { stores, workspaceA, fixtures } = current();
      const input = fixtures.newTask(workspaceA);
      const created = await stores.tasks.create(input);
      input.task.status.state = "failed";
      created.task.history.length = 0;
      const first = must(await stores.tasks.get(workspaceA, created.task.id));
      expect(first.task.status.state).toBe("working");
      expect(first.task.history).toHaveLength(1);
      first.task.artifacts.push({ artifactId: "x", parts: [] });
      first.lease = { owner: "thief", expiresAt: FAR_FUTURE };
      const second = await stores.tasks.get(workspaceA, created.task.id);
      expect(second).not.toBe(first);
      expect(second?.task.artifacts).toEqual([]);
      expect(second?.lease?.owner).toBe("runner-a");

      const entry = fixtures.update(created.task, 40);
      const appended = await stores.events.append(created.task.id, entry);
      (entry.result as { metadata: Record<string, unknown> }).metadata.percent = -1;
      (must(appended).result as { metadata: Record<string, unknown> }).metadata.percent = -2;
      const [read] = await stores.events.readAfter(created.task.id, 1);
      expect((must(read).result as { metadata: Record<string, unknown> }).metadata.percent).toBe(40);
    });
  });

  defineListTasksCases(() => {
    const { stores, workspaceA, workspaceB, fixtures } = current();
    return { tasks: stores.tasks, events: stores.events, workspaceA, workspaceB, fixtures };
  });
}
