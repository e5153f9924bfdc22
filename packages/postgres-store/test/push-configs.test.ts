import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { describe, expect, it } from "vitest";
import { migratedStoresPerSuite } from "./support/migrated-backend.js";
import { deliveryKeys, pushConfig, RunningTask } from "./support/push-fixtures.js";

const kinds = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])] as const;

describe.each(kinds)("PostgresPushConfigStore (%s)", (kind) => {
  const fixtures = storeFixtures();
  const workspaceA = crypto.randomUUID();
  const workspaceB = crypto.randomUUID();
  const suite = migratedStoresPerSuite(kind, "push_configs");

  async function taskId(): Promise<string> {
    return (await suite.stores.tasks.create(fixtures.newTask(workspaceA))).task.id;
  }

  it("stores, replaces, reads, lists in creation order and deletes a task's configs", async () => {
    const configs = suite.stores.push.configs;
    const id = await taskId();
    const first = pushConfig(id, "first", {
      token: "tok-1",
      authentication: { schemes: ["Bearer"], credentials: "secret" },
      version: "0.3",
    });
    const second = pushConfig(id, "second");
    expect(await configs.put(workspaceA, first, 10)).toEqual({ kind: "stored", config: first });
    expect(await configs.put(workspaceA, second, 10)).toEqual({ kind: "stored", config: second });
    expect(await configs.get(workspaceA, id, "second")).toEqual(second);
    expect(await configs.get(workspaceA, id, "third")).toBeUndefined();

    // Replacing keeps its place and takes every new value (absent fields become absent).
    const replaced = pushConfig(id, "first", { url: "https://elsewhere.example/hook" });
    expect(await configs.put(workspaceA, replaced, 10)).toEqual({ kind: "stored", config: replaced });
    expect(await configs.list(workspaceA, id)).toEqual([replaced, second]);

    expect(await configs.delete(workspaceA, id, "first")).toBe(true);
    expect(await configs.delete(workspaceA, id, "first")).toBe(false);
    expect(await configs.list(workspaceA, id)).toEqual([second]);
    expect(await configs.delete(workspaceA, id, "second")).toBe(true);
    expect(await configs.list(workspaceA, id)).toEqual([]);
  });

  it("answers another workspace's task and an unknown one as unknown, and changes nothing for them", async () => {
    const configs = suite.stores.push.configs;
    const id = await taskId();
    const config = pushConfig(id, "mine");
    await configs.put(workspaceA, config, 10);
    for (const [workspace, task] of [
      [workspaceB, id],
      [workspaceA, crypto.randomUUID()],
      [workspaceA, "not-a-uuid"],
      ["not-a-uuid", id],
    ] as const) {
      expect(await configs.put(workspace, pushConfig(task, "theirs"), 10)).toEqual({ kind: "task-not-found" });
      expect(await configs.get(workspace, task, "mine")).toBeUndefined();
      expect(await configs.list(workspace, task)).toBeUndefined();
      expect(await configs.delete(workspace, task, "mine")).toBeUndefined();
    }
    expect(await configs.list(workspaceA, id)).toEqual([config]);
  });

  it("holds the maximum per task when puts race, and still replaces one at the maximum", async () => {
    const configs = suite.stores.push.configs;
    const id = await taskId();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => configs.put(workspaceA, pushConfig(id, `c${i}`), 3)),
    );
    expect(results.filter((result) => result.kind === "stored")).toHaveLength(3);
    expect(results.filter((result) => result.kind === "too-many")).toHaveLength(5);
    const listed = (await configs.list(workspaceA, id)) ?? [];
    expect(listed).toHaveLength(3);
    const kept = listed[0]?.id ?? "";
    const again = pushConfig(id, kept, { url: "https://replaced.example/" });
    expect(await configs.put(workspaceA, again, 3)).toEqual({ kind: "stored", config: again });
    expect(await configs.put(workspaceA, pushConfig(id, "one-more"), 3)).toEqual({ kind: "too-many" });
    expect((await configs.list(workspaceA, id))?.map((config) => config.id)).toEqual(listed.map((config) => config.id));
  });

  it("gives a config the events committed after it, not older ones, and drops its deliveries with it", async () => {
    const running = await RunningTask.start(suite.stores, fixtures, workspaceA);
    expect(await running.next()).toBe(true); // seq 2, before any config
    await suite.stores.push.configs.put(workspaceA, pushConfig(running.task.id, "late"), 10);
    expect(await running.next()).toBe(true); // seq 3
    expect(await deliveryKeys(suite.backend.db, running.task.id)).toEqual(["late 3"]);
    await suite.stores.push.configs.put(workspaceA, pushConfig(running.task.id, "later"), 10);
    expect(await running.next()).toBe(true); // seq 4
    expect(await deliveryKeys(suite.backend.db, running.task.id)).toEqual(["late 3", "late 4", "later 4"]);

    expect(await suite.stores.push.configs.delete(workspaceA, running.task.id, "late")).toBe(true);
    expect(await deliveryKeys(suite.backend.db, running.task.id)).toEqual(["later 4"]);
    expect(await running.next()).toBe(true); // seq 5: only the config left
    expect(await deliveryKeys(suite.backend.db, running.task.id)).toEqual(["later 4", "later 5"]);
  });

  it("deletes a task's configs and deliveries with the task", async () => {
    const running = await RunningTask.start(suite.stores, fixtures, workspaceA);
    await suite.stores.push.configs.put(workspaceA, pushConfig(running.task.id, "gone"), 10);
    expect(await running.next()).toBe(true);
    await suite.backend.db.query("delete from tasks where id = $1", [running.task.id]);
    const { rows } = await suite.backend.db.query<{ configs: number; deliveries: number }>(
      `select (select count(*) from push_configs where task_id = $1)::int as configs,
              (select count(*) from push_deliveries where task_id = $1)::int as deliveries`,
      [running.task.id],
    );
    expect(rows[0]).toEqual({ configs: 0, deliveries: 0 });
  });
});
