import { describe, expect, it } from "vitest";
import type { DependencyFailedError } from "../ports/append-dependencies.js";
import { applyTaskEvent } from "../ports/apply-task-event.js";
import type { StoreContractContext } from "./store-contract-context.js";
import { sleep } from "./store-fixtures.js";

/** What every EventLog does with a numbered append's `dependsOn`: stored only once all of it succeeded. */
export function defineAppendDependencyCases(current: () => StoreContractContext): void {
  describe("EventLog: an append's dependencies", () => {
    async function startedTask() {
      const { stores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const entry = fixtures.update(task, 50);
      const append = {
        taskId: task.id,
        prevSeq: 1,
        events: [{ taskId: task.id, seq: 2, ...entry }],
        snapshot: applyTaskEvent(task, entry.result),
      };
      const seqs = async () => (await stores.events.readAfter(task.id, 0)).map((event) => event.seq);
      return { task, append, seqs };
    }

    it("stores a numbered append only once the writes it depends on have succeeded", async () => {
      const { stores } = current();
      const { append, seqs } = await startedTask();
      let succeed!: () => void;
      const record = new Promise<void>((resolve) => {
        succeed = resolve;
      });
      const stored = stores.events.appendNumbered(append, [Promise.resolve(), record]);
      await sleep(50);
      expect(await seqs()).toEqual([1]);
      succeed();
      await expect(stored).resolves.toBe(true);
      expect(await seqs()).toEqual([1, 2]);
    });

    it("refuses a numbered append whose dependency failed, storing none of it", async () => {
      const { stores, workspaceA } = current();
      const { task, append, seqs } = await startedTask();
      const refused = new Error("the robot's record was refused");
      const stored = stores.events.appendNumbered(append, [Promise.resolve(), Promise.reject(refused)]);
      const error = await stored.then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect((error as Error).name).toBe("DependencyFailedError");
      expect((error as DependencyFailedError).cause).toBe(refused);
      expect(await seqs()).toEqual([1]);
      expect((await stores.tasks.get(workspaceA, task.id))?.lastSeq).toBe(1);
      // Nothing is left waiting: the same events without the failed write are stored.
      await expect(stores.events.appendNumbered(append)).resolves.toBe(true);
      expect(await seqs()).toEqual([1, 2]);
    });
  });
}
