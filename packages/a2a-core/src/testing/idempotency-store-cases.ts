import { describe, expect, it } from "vitest";
import type { StoreContractContext } from "./store-contract-context.js";
import { HOUR_MS, must } from "./store-fixtures.js";

/** What every IdempotencyStore does: exactly one task per key, however many starts race for it. */
export function defineIdempotencyStoreCases(current: () => StoreContractContext): void {
  describe("IdempotencyStore", () => {
    it("creates exactly one task for 50 concurrent starts with one messageId", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const messageId = `msg-${crypto.randomUUID()}`;
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
      const { record, created } = await stores.idempotency.createOrGet(`msg-${crypto.randomUUID()}`, input);
      expect(created).toBe(true);
      expect(record.task).toEqual(sent);
      record.task.history.push({ messageId: "m-local", role: "ROLE_AGENT", parts: [{ text: "local" }] });
      expect(input.task).toEqual(sent);
    });

    it("returns the original task for a retry even when the new request differs", async () => {
      const { stores, otherStores, workspaceA, fixtures } = current();
      const messageId = `msg-${crypto.randomUUID()}`;
      const original = await stores.idempotency.createOrGet(messageId, fixtures.newTask(workspaceA));
      await stores.events.append(original.record.task.id, fixtures.update(original.record.task, 30));
      // Another instance's retry: its own runner would hold the lease, but the task stays the original's.
      const retry = fixtures.newTask(workspaceA, { lease: { owner: "runner-retry", durationMs: HOUR_MS } });
      retry.task.history[0] = { messageId, role: "ROLE_USER", parts: [{ text: "something else" }] };
      const again = await otherStores.idempotency.createOrGet(messageId, retry);
      expect(again.created).toBe(false);
      expect(again.record).toEqual(await stores.tasks.get(workspaceA, original.record.task.id));
      expect(again.record.lease?.owner).toBe(original.record.lease?.owner);
      expect(again.record.lastSeq).toBe(2);
      expect(await stores.tasks.get(workspaceA, retry.task.id)).toBeUndefined();
    });

    it("keys by workspace and messageId: another key or another workspace is a new task", async () => {
      const { stores, workspaceA, workspaceB, fixtures } = current();
      const messageId = `msg-${crypto.randomUUID()}`;
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
}
