import { setTimeout as sleep } from "node:timers/promises";
import { applyTaskEvent, type NewTaskEvent, type StoredTaskEvent, type Task } from "@a2a-partner/a2a-core";
import { within } from "@a2a-partner/a2a-core/testing";
import { describe, expect, it } from "vitest";
import { TASK_EVENTS_CHANNEL } from "../../src/stores/postgres-event-log.js";
import { taskFollowersOf } from "../../src/tasks/task-followers.js";
import type { SuiteContext } from "./store-suite.js";

interface Heard {
  seq: number | undefined;
  fromSeq?: number;
  events?: readonly StoredTaskEvent[];
}

/**
 * A group commit's notification carries the events it stored to a watcher on another instance (another
 * Database, as another process would have): exactly what a read of the log returns, only for appends
 * that were stored, and never a payload PostgreSQL refuses.
 */
export function defineCarriedEventsTests(context: () => SuiteContext): void {
  describe("events carried by the commit's notification", () => {
    /**
     * Watches `task` from the other instance (following it for streams, unless told otherwise); what it
     * hears, in order. Resolves once the writing instance knows of a follow.
     */
    async function hear(taskId: string, following = true): Promise<{ heard: Heard[]; stop: () => void }> {
      const heard: Heard[] = [];
      await context().stores.events.listen();
      const stop = context().otherStores.events.watch(
        taskId,
        (seq, carried) => heard.push(carried ? { seq, fromSeq: carried.fromSeq, events: carried.read() } : { seq }),
        { following },
      );
      await context().otherStores.events.listen();
      if (following)
        await within(
          5_000,
          until(() => taskFollowersOf(context().db).followedElsewhere(taskId)),
        );
      return { heard, stop };
    }

    async function until(check: () => boolean): Promise<void> {
      while (!check()) await sleep(5);
    }

    async function append(task: Task, prevSeq: number, entries: readonly NewTaskEvent[]): Promise<boolean> {
      let snapshot = task;
      const events = entries.map((entry, index) => {
        snapshot = applyTaskEvent(snapshot, entry.result);
        return { taskId: task.id, seq: prevSeq + 1 + index, ...entry };
      });
      return context().stores.events.appendNumbered({ taskId: task.id, prevSeq, events, snapshot });
    }

    const padded = (entry: NewTaskEvent, bytes: number): NewTaskEvent => {
      if (!("statusUpdate" in entry.result)) throw new Error("not a status update");
      const statusUpdate = { ...entry.result.statusUpdate, metadata: { pad: "é".repeat(bytes / 2) } };
      return { ...entry, result: { statusUpdate } };
    };

    async function heardOf(heard: Heard[], seq: number): Promise<Heard> {
      await within(
        5_000,
        until(() => heard.some((entry) => entry.seq === seq)),
      );
      return heard.find((entry) => entry.seq === seq) as Heard;
    }

    it("carries a small append's events, as the log holds them; names a large one's task only", async () => {
      const { stores, workspaceA, update } = context();
      const { task } = await stores.tasks.create(context().newTask(workspaceA));
      const { heard, stop } = await hear(task.id);
      try {
        expect(await append(task, 1, [update(task, 10), update(task, 20)])).toBe(true);
        const carried = await heardOf(heard, 3);
        expect(carried.fromSeq).toBe(2);
        expect(carried.events).toEqual(await stores.events.readAfter(task.id, 1));

        // 5,000 bytes of two-byte characters: past what one notification entry may carry.
        expect(await append(task, 3, [padded(update(task, 30), 5_000)])).toBe(true);
        const named = await heardOf(heard, 4);
        expect(named).toEqual({ seq: 4 });
      } finally {
        stop();
      }
    });

    it("names only the task's number to a watcher that does not follow it for streams", async () => {
      const { stores, workspaceA, update } = context();
      const { task } = await stores.tasks.create(context().newTask(workspaceA));
      const { heard, stop } = await hear(task.id, false);
      try {
        expect(await append(task, 1, [update(task, 10)])).toBe(true);
        expect(await heardOf(heard, 2)).toEqual({ seq: 2 });
      } finally {
        stop();
      }
    });

    it("announces nothing for an append refused for its stale sequence number", async () => {
      const { stores, workspaceA, update } = context();
      const { task } = await stores.tasks.create(context().newTask(workspaceA));
      const { heard, stop } = await hear(task.id);
      try {
        expect(await append(task, 1, [update(task, 10)])).toBe(true);
        await heardOf(heard, 2);
        // Another writer's event 2 was stored already: this one is refused, and must not reach a stream,
        // though the commit it shares with another task's append (queued together) notifies.
        const { task: other } = await stores.tasks.create(context().newTask(workspaceA));
        const otherHeard = await hear(other.id);
        try {
          expect(
            await Promise.all([append(task, 1, [update(task, 99)]), append(other, 1, [update(other, 5)])]),
          ).toEqual([false, true]);
          await heardOf(otherHeard.heard, 2);
        } finally {
          otherHeard.stop();
        }
        expect(await append(task, 2, [update(task, 20)])).toBe(true);
        await heardOf(heard, 3);
        expect(heard.map((entry) => entry.seq)).toEqual([2, 3]);
        expect(heard.flatMap((entry) => entry.events ?? [])).toEqual(await stores.events.readAfter(task.id, 1));
      } finally {
        stop();
      }
    });

    it("spreads one commit's many carried entries over notifications PostgreSQL accepts", async () => {
      const { stores, workspaceA, update } = context();
      const tasks = await Promise.all(
        Array.from({ length: 12 }, async () => (await stores.tasks.create(context().newTask(workspaceA))).task),
      );
      const hearing = await Promise.all(tasks.map((task) => hear(task.id)));
      const payloadBytes: number[] = [];
      const stopRaw = await context().other.listen(TASK_EVENTS_CHANNEL, (payload) => {
        if (tasks.some((task) => payload.includes(task.id))) payloadBytes.push(Buffer.byteLength(payload));
      });
      try {
        // Queued together, one commit with 40,000 bytes of entries: a short one first, then entries of
        // about 3,750 bytes, so a payload may hold a short entry and two of the largest that are carried.
        const pads = tasks.map((_, index) => (index === 0 ? 100 : 3_300));
        const stored = await Promise.all(
          tasks.map((task, index) => append(task, 1, [padded(update(task, 50), pads[index] ?? 0)])),
        );
        expect(stored).toEqual(tasks.map(() => true));
        for (const [index, task] of tasks.entries()) {
          const carried = await heardOf(hearing[index]?.heard ?? [], 2);
          expect(carried.events).toEqual(await stores.events.readAfter(task.id, 1));
        }
        // Packed two to a payload, each under PostgreSQL's limit (a refused payload would have failed the
        // commit, and its appends would have been committed one by one, a payload each).
        expect(payloadBytes.length).toBeGreaterThan(0);
        expect(payloadBytes.length).toBeLessThan(tasks.length);
        expect(Math.max(...payloadBytes)).toBeLessThan(8_000);
      } finally {
        await stopRaw();
        for (const { stop } of hearing) stop();
      }
    });
  });
}
