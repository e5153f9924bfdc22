import { describe, expect, it } from "vitest";
import type { StoreContractContext } from "./store-contract-context.js";
import { HOUR_MS } from "./store-fixtures.js";

/** What every TaskStore does: create and get, workspace scoping, leases and orphans. */
export function defineTaskStoreCases(current: () => StoreContractContext): void {
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
        { taskId: input.task.id, seq: 1, event: "task", result: { task: input.task }, createdAt: input.createdAt },
      ]);
    });

    it("hides a task from another workspace and answers unknown or malformed ids with undefined", async () => {
      const { stores, workspaceA, workspaceB, fixtures } = current();
      const input = fixtures.newTask(workspaceA);
      await stores.tasks.create(input);
      expect(await stores.tasks.get(workspaceB, input.task.id)).toBeUndefined();
      expect(await stores.tasks.get(workspaceA, crypto.randomUUID())).toBeUndefined();
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
        [orphanA.task.id, healthy.task.id, orphanB.task.id, ended.task.id, crypto.randomUUID(), "junk"],
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
}
