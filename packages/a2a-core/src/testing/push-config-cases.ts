import { describe, expect, it } from "vitest";
import { pushCases, pushConfig } from "./push-fixtures.js";
import type { StoreContractContext } from "./store-contract-context.js";

/** What every PushConfigStore does: a task's configs, scoped to its workspace and bounded per task. */
export function definePushConfigCases(current: () => StoreContractContext): void {
  describe("PushConfigStore", () => {
    const cases = pushCases(current);

    it("creates, replaces, gets, lists (oldest first) and deletes a task's configs", async ({ skip }) => {
      const push = cases.push(skip);
      const { stores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const first = pushConfig(task.id, {
        token: "notification-token",
        authentication: { schemes: ["Bearer"], credentials: "receiver-credential" },
        createdAt: fixtures.clock(),
      });
      const second = pushConfig(task.id, { version: "1.0", createdAt: fixtures.clock() });
      cases.track(push, workspaceA, [first, second]);
      expect(await push.configs.put(workspaceA, first, 10)).toEqual({ kind: "stored", config: first });
      expect(await push.configs.put(workspaceA, second, 10)).toEqual({ kind: "stored", config: second });
      expect(await push.configs.get(workspaceA, task.id, first.id)).toEqual(first);
      expect(await push.configs.list(workspaceA, task.id)).toEqual([first, second]);

      // The same id again replaces: one config still, at its new address.
      const moved = { ...first, url: "https://receiver.example.com/moved", token: "rotated" };
      const replaced = await push.configs.put(workspaceA, moved, 10);
      expect(replaced).toMatchObject({ kind: "stored", config: { id: first.id, url: moved.url, token: "rotated" } });
      expect(await push.configs.get(workspaceA, task.id, first.id)).toMatchObject({ url: moved.url });
      expect((await push.configs.list(workspaceA, task.id))?.map((c) => c.id).sort()).toEqual(
        [first.id, second.id].sort(),
      );

      // Copies both ways: changing what was handed out or in changes nothing stored.
      const read = await push.configs.get(workspaceA, task.id, second.id);
      if (read) read.url = "https://elsewhere.example.com/";
      second.url = "https://elsewhere.example.com/";
      expect((await push.configs.get(workspaceA, task.id, second.id))?.url).not.toBe("https://elsewhere.example.com/");

      // Delete is idempotent: true once, then false.
      expect(await push.configs.delete(workspaceA, task.id, first.id)).toBe(true);
      expect(await push.configs.delete(workspaceA, task.id, first.id)).toBe(false);
      expect(await push.configs.get(workspaceA, task.id, first.id)).toBeUndefined();
      expect((await push.configs.list(workspaceA, task.id))?.map((c) => c.id)).toEqual([second.id]);
      expect(await push.configs.get(workspaceA, task.id, "no-such-config")).toBeUndefined();
    });

    it("scopes configs to the task's workspace: another workspace's task looks unknown", async ({ skip }) => {
      const push = cases.push(skip);
      const { stores, workspaceA, workspaceB, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const config = pushConfig(task.id);
      cases.track(push, workspaceA, [config]);
      expect((await push.configs.put(workspaceA, config, 10)).kind).toBe("stored");

      expect(await push.configs.put(workspaceB, pushConfig(task.id), 10)).toEqual({ kind: "task-not-found" });
      expect(await push.configs.put(workspaceB, { ...config, url: "https://thief.example.com/" }, 10)).toEqual({
        kind: "task-not-found",
      });
      expect(await push.configs.get(workspaceB, task.id, config.id)).toBeUndefined();
      expect(await push.configs.list(workspaceB, task.id)).toBeUndefined();
      expect(await push.configs.delete(workspaceB, task.id, config.id)).toBeUndefined();
      expect(await push.configs.list(workspaceA, task.id)).toEqual([config]);

      // Unknown and malformed task ids, and a task without configs.
      for (const taskId of [crypto.randomUUID(), "not-a-uuid"]) {
        expect(await push.configs.put(workspaceA, pushConfig(taskId), 10)).toEqual({ kind: "task-not-found" });
        expect(await push.configs.list(workspaceA, taskId)).toBeUndefined();
        expect(await push.configs.get(workspaceA, taskId, "c")).toBeUndefined();
        expect(await push.configs.delete(workspaceA, taskId, "c")).toBeUndefined();
      }
      const { task: bare } = await stores.tasks.create(fixtures.newTask(workspaceA));
      expect(await push.configs.list(workspaceA, bare.id)).toEqual([]);
      expect(await push.configs.delete(workspaceA, bare.id, "c")).toBe(false);
    });

    it("holds at most maxPerTask configs per task; replacing one at the bound is allowed", async ({ skip }) => {
      const push = cases.push(skip);
      const { stores, workspaceA, fixtures } = current();
      const { task } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const configs = [pushConfig(task.id), pushConfig(task.id), pushConfig(task.id)];
      cases.track(push, workspaceA, configs);
      const [a, b, c] = configs as [(typeof configs)[0], (typeof configs)[0], (typeof configs)[0]];
      expect((await push.configs.put(workspaceA, a, 2)).kind).toBe("stored");
      expect((await push.configs.put(workspaceA, b, 2)).kind).toBe("stored");
      expect(await push.configs.put(workspaceA, c, 2)).toEqual({ kind: "too-many" });
      expect((await push.configs.put(workspaceA, { ...b, url: "https://receiver.example.com/b2" }, 2)).kind).toBe(
        "stored",
      );
      expect(await push.configs.list(workspaceA, task.id)).toHaveLength(2);
      // A config of another task does not count.
      const { task: other } = await stores.tasks.create(fixtures.newTask(workspaceA));
      const elsewhere = pushConfig(other.id);
      cases.track(push, workspaceA, [elsewhere]);
      expect((await push.configs.put(workspaceA, elsewhere, 2)).kind).toBe("stored");
    });

    it("stores a start's configs with its task; a retried start keeps the original's", async ({ skip }) => {
      const push = cases.push(skip);
      const { stores, otherStores, workspaceA, fixtures } = current();
      const created = fixtures.newTask(workspaceA);
      const config = pushConfig(created.task.id, { token: "t-1" });
      cases.track(push, workspaceA, [config]);
      await stores.tasks.create({ ...created, pushConfigs: [config] });
      expect(await push.configs.list(workspaceA, created.task.id)).toEqual([config]);

      const messageId = `msg-${crypto.randomUUID()}`;
      const start = fixtures.newTask(workspaceA);
      const original = pushConfig(start.task.id);
      cases.track(push, workspaceA, [original]);
      const first = await stores.idempotency.createOrGet(messageId, { ...start, pushConfigs: [original] });
      expect(first.created).toBe(true);
      const retry = fixtures.newTask(workspaceA);
      const ignored = pushConfig(retry.task.id);
      const again = await otherStores.idempotency.createOrGet(messageId, { ...retry, pushConfigs: [ignored] });
      expect(again.created).toBe(false);
      expect(again.record.task.id).toBe(start.task.id);
      expect(await push.configs.list(workspaceA, start.task.id)).toEqual([original]);
      expect(await push.configs.list(workspaceA, retry.task.id)).toBeUndefined();
    });
  });
}
