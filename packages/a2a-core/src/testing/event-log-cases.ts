import { describe, expect, it } from "vitest";
import { applyTaskEvent } from "../ports/apply-task-event.js";
import type { NewTaskEvent, StoredTaskEvent } from "../ports/task-records.js";
import type { StoreContractContext } from "./store-contract-context.js";
import { must, sleep, within } from "./store-fixtures.js";

/** The status a logged status update carries (a failed test if it carries none). */
function statusOf(event: StoredTaskEvent) {
  if (!("statusUpdate" in event.result)) throw new Error(`event ${event.seq} is no status update`);
  return event.result.statusUpdate.status;
}

/** What every EventLog does: appends, numbered appends, reads after a seq, change notifications. */
export function defineEventLogCases(current: () => StoreContractContext): void {
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
          artifactUpdate: {
            taskId: task.id,
            contextId: task.contextId,
            artifact: { artifactId: "report", parts: [{ text: "aisle 4 done" }] },
          },
        },
      });
      expect([first?.seq, second?.seq, third?.seq]).toEqual([2, 3, 4]);
      expect(third).toMatchObject({ taskId: task.id, event: "update", createdAt: artifactAt });
      const record = await stores.tasks.get(workspaceA, task.id);
      expect(record?.lastSeq).toBe(4);
      expect(record?.task.status).toEqual(statusOf(must(second)));
      expect(record?.task.artifacts).toEqual([{ artifactId: "report", parts: [{ text: "aisle 4 done" }] }]);
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
      const end = await stores.events.append(task.id, fixtures.finished(task, "TASK_STATE_CANCELED"));
      expect(end?.seq).toBe(2);
      expect(await stores.events.append(task.id, fixtures.update(task, 99))).toBeUndefined();
      expect(await stores.events.append(task.id, fixtures.finished(task))).toBeUndefined();
      const record = await stores.tasks.get(workspaceA, task.id);
      expect(record?.lastSeq).toBe(2);
      expect(record?.task.status.state).toBe("TASK_STATE_CANCELED");
      // The final status message joins the history (applyTaskEvent).
      expect(record?.task.history.at(-1)?.parts).toEqual([{ text: "canceled" }]);
    });

    it("stores exactly one finished event when several finishers race", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      await stores.events.append(task.id, fixtures.update(task, 50));
      const states = [
        "TASK_STATE_COMPLETED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_FAILED",
        "TASK_STATE_COMPLETED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_FAILED",
      ] as const;
      const results = await Promise.all(
        states.map((state, i) => (i % 2 ? otherStores : stores).events.append(task.id, fixtures.finished(task, state))),
      );
      const winners = results.filter((r): r is StoredTaskEvent => r !== undefined);
      expect(winners).toHaveLength(1);
      const log = await stores.events.readAfter(task.id, 0);
      expect(log.filter((e) => e.event === "finished")).toEqual(winners);
      const record = await stores.tasks.get(workspaceA, task.id);
      expect(record?.task.status).toEqual(statusOf(must(winners[0])));
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
      expect(await read(crypto.randomUUID(), 0)).toEqual([]);
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
      await otherStores.events.append(task.id, fixtures.finished(task, "TASK_STATE_CANCELED"));
      await expect(stores.events.appendNumbered(numbered(3))).resolves.toBe(false);
      const log = await stores.events.readAfter(task.id, 0);
      expect(log.map((e) => [e.seq, e.event])).toEqual([
        [1, "task"],
        [2, "update"],
        [3, "finished"],
      ]);
      const record = await stores.tasks.get(workspaceA, task.id);
      expect(record?.lastSeq).toBe(3);
      expect(record?.task.status.state).toBe("TASK_STATE_CANCELED");
    });

    it("stores several numbered events of one task together, or none of them", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const artifact: NewTaskEvent = {
        event: "update",
        createdAt: fixtures.clock(),
        result: {
          artifactUpdate: {
            taskId: task.id,
            contextId: task.contextId,
            artifact: { artifactId: "report", parts: [{ text: "done" }] },
          },
        },
      };
      const end = fixtures.finished(task, "TASK_STATE_COMPLETED");
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
      expect(record?.task.status.state).toBe("TASK_STATE_COMPLETED");
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
}
