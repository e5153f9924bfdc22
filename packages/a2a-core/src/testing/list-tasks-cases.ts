import { describe, expect, it } from "vitest";
import type { EventLog } from "../ports/event-log.js";
import type { TaskListQuery } from "../ports/task-list.js";
import type { TaskStore } from "../ports/task-store.js";
import type { Task } from "../protocol/schemas/a2a.js";
import type { EndState, StoreFixtures } from "./store-fixtures.js";

/** A store implementation under test, with two workspaces it knows. */
export interface ListTasksTarget {
  tasks: TaskStore;
  events: EventLog;
  workspaceA: string;
  workspaceB: string;
  fixtures: StoreFixtures;
}

/**
 * ListTasks as every TaskStore must answer it (part of the store contract suite, so the in-memory store
 * and the PostgreSQL/PGlite store run the same cases): scope, order, filters and keyset pages.
 */
export function defineListTasksCases(current: () => ListTasksTarget) {
  describe("listing tasks", () => {
    const clock = () => current().fixtures.clock();

    async function start(workspaceId: string, options: { contextId?: string; at?: string } = {}): Promise<Task> {
      const { tasks, fixtures } = current();
      const overrides = {
        ...(options.contextId ? { contextId: options.contextId } : {}),
        ...(options.at ? { createdAt: options.at } : {}),
      };
      return (await tasks.create(fixtures.newTask(workspaceId, overrides))).task;
    }

    async function finish(task: Task, state: EndState = "TASK_STATE_COMPLETED"): Promise<void> {
      const { events, fixtures } = current();
      await events.append(task.id, fixtures.finished(task, state));
    }

    const list = (workspaceId: string, query: Partial<TaskListQuery> = {}) =>
      (current().tasks.list as NonNullable<TaskStore["list"]>).call(current().tasks, workspaceId, {
        pageSize: 50,
        ...query,
      });

    it("lists only the caller's workspace, newest status first", async () => {
      const contextId = crypto.randomUUID();
      const first = await start(current().workspaceA, { contextId });
      const second = await start(current().workspaceA, { contextId });
      const foreign = await start(current().workspaceB, { contextId });
      const page = await list(current().workspaceA, { contextId });
      expect(page.tasks.map((task) => task.id)).toEqual([second.id, first.id]);
      expect(page.totalSize).toBe(2);
      expect(page.next).toBeUndefined();
      expect((await list(current().workspaceB, { contextId })).tasks.map((task) => task.id)).toEqual([foreign.id]);
      // A full snapshot: history and artifacts as stored.
      expect(page.tasks[0]).toMatchObject({ id: second.id, history: [{ role: "ROLE_USER" }], artifacts: [] });
    });

    it("moves a task whose status changed to the front", async () => {
      const contextId = crypto.randomUUID();
      const older = await start(current().workspaceA, { contextId });
      const newer = await start(current().workspaceA, { contextId });
      await finish(older);
      const page = await list(current().workspaceA, { contextId });
      expect(page.tasks.map((task) => [task.id, task.status.state])).toEqual([
        [older.id, "TASK_STATE_COMPLETED"],
        [newer.id, "TASK_STATE_WORKING"],
      ]);
    });

    it("filters by state and by status timestamp (inclusive)", async () => {
      const contextId = crypto.randomUUID();
      const done = await start(current().workspaceA, { contextId });
      await finish(done, "TASK_STATE_CANCELED");
      const since = clock();
      const later = await start(current().workspaceA, { contextId, at: since });
      const working = await list(current().workspaceA, { contextId, state: "TASK_STATE_WORKING" });
      expect(working.tasks.map((task) => task.id)).toEqual([later.id]);
      expect(working.totalSize).toBe(1);
      const canceled = await list(current().workspaceA, { contextId, state: "TASK_STATE_CANCELED" });
      expect(canceled.tasks.map((task) => task.id)).toEqual([done.id]);
      const recent = await list(current().workspaceA, { contextId, statusTimestampAfter: since });
      expect(recent.tasks.map((task) => task.id)).toEqual([later.id]);
      expect((await list(current().workspaceA, { contextId: crypto.randomUUID() })).totalSize).toBe(0);
    });

    it("orders tasks with the same status timestamp by id, descending, and pages through them", async () => {
      const contextId = crypto.randomUUID();
      const at = clock();
      const tied = await Promise.all(Array.from({ length: 3 }, () => start(current().workspaceA, { contextId, at })));
      const expected = tied
        .map((task) => task.id)
        .sort()
        .reverse();
      const seen: string[] = [];
      let after: TaskListQuery["after"];
      do {
        const page = await list(current().workspaceA, { contextId, pageSize: 1, ...(after ? { after } : {}) });
        seen.push(...page.tasks.map((task) => task.id));
        after = page.next;
      } while (after);
      expect(seen).toEqual(expected);
    });

    it("pages by keyset: every task once, and tasks created meanwhile do not shift later pages", async () => {
      const contextId = crypto.randomUUID();
      const tasks: Task[] = [];
      for (let i = 0; i < 5; i++) tasks.push(await start(current().workspaceA, { contextId }));
      const newestFirst = tasks.map((task) => task.id).reverse();

      const first = await list(current().workspaceA, { contextId, pageSize: 2 });
      expect(first.tasks.map((task) => task.id)).toEqual(newestFirst.slice(0, 2));
      expect(first.totalSize).toBe(5);
      expect(first.next).toBeDefined();

      // Two new tasks arrive between pages: they are newer than the cursor, so the next pages go on
      // exactly where the first one stopped (an offset would repeat two tasks).
      await start(current().workspaceA, { contextId });
      await start(current().workspaceA, { contextId });
      const second = await list(current().workspaceA, {
        contextId,
        pageSize: 2,
        ...(first.next ? { after: first.next } : {}),
      });
      expect(second.tasks.map((task) => task.id)).toEqual(newestFirst.slice(2, 4));
      expect(second.totalSize).toBe(7);
      const third = await list(current().workspaceA, {
        contextId,
        pageSize: 2,
        ...(second.next ? { after: second.next } : {}),
      });
      expect(third.tasks.map((task) => task.id)).toEqual(newestFirst.slice(4));
      expect(third.next).toBeUndefined();
    });

    it("pages through running and ended tasks as one order, the cursor crossing from one kind to the other", async () => {
      const { events, fixtures } = current();
      const contextId = crypto.randomUUID();
      const [a, b, c, d] = [
        await start(current().workspaceA, { contextId }),
        await start(current().workspaceA, { contextId }),
        await start(current().workspaceA, { contextId }),
        await start(current().workspaceA, { contextId }),
      ] as [Task, Task, Task, Task];
      await finish(a);
      await events.append(c.id, fixtures.update(c, 50)); // still running, its status newer than a's end
      await finish(b);
      // A running and an ended task with one status timestamp: ordered by id like any other tie.
      const tieAt = clock();
      const running = await start(current().workspaceA, { contextId, at: tieAt });
      const ended = await start(current().workspaceA, { contextId });
      const end = fixtures.finished(ended);
      if (!("statusUpdate" in end.result)) throw new Error("finished() makes a status update");
      const status = { ...end.result.statusUpdate.status, timestamp: tieAt };
      await events.append(ended.id, { ...end, result: { statusUpdate: { ...end.result.statusUpdate, status } } });
      const tied = [running.id, ended.id].sort().reverse();
      const expected = [...tied, b.id, c.id, a.id, d.id];

      for (const pageSize of [1, 2, 4, 50]) {
        const seen: string[] = [];
        let after: TaskListQuery["after"];
        do {
          const page = await list(current().workspaceA, { contextId, pageSize, ...(after ? { after } : {}) });
          expect(page.totalSize).toBe(6);
          seen.push(...page.tasks.map((task) => task.id));
          after = page.next;
        } while (after);
        expect(seen).toEqual(expected);
      }
      expect(
        (await list(current().workspaceA, { contextId, state: "TASK_STATE_COMPLETED" })).tasks.map((t) => t.id),
      ).toEqual(expected.filter((id) => id !== running.id && id !== c.id && id !== d.id));
    });

    it("hands out copies", async () => {
      const contextId = crypto.randomUUID();
      const task = await start(current().workspaceA, { contextId });
      const page = await list(current().workspaceA, { contextId });
      (page.tasks[0] as Task).status.state = "TASK_STATE_FAILED";
      expect((await list(current().workspaceA, { contextId })).tasks[0]?.status.state).toBe("TASK_STATE_WORKING");
      expect((await current().tasks.get(current().workspaceA, task.id))?.task.status.state).toBe("TASK_STATE_WORKING");
    });
  });
}
