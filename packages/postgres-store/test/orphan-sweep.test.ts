import { randomUUID } from "node:crypto";
import { type A2AHandler, createA2AHandler, type TaskExecutor, type TaskStore } from "@a2a-partner/a2a-core";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { describe, expect, it } from "vitest";
import { createPostgresStores } from "../src/index.js";
import { handlerBackendPerSuite } from "./support/migrated-backend.js";

const reachable = await postgresAvailable();
const HOUR_MS = 3_600_000;
const never: TaskExecutor = { execute: () => new Promise(() => undefined) };

// The sweep reads expired leases without a lock, then ends each task. A renewal that commits in between
// (its runner was only slow: a GC pause, a brief database stall) made a live task end `failed` under it.
describe.each(["pglite", "postgres"] as const)("the orphan sweep against a late renewal, on %s", (kind) => {
  const suite = handlerBackendPerSuite(kind, "orphan_test", kind === "postgres" && !reachable);
  const fixtures = storeFixtures();
  const workspaceId = randomUUID();

  /**
   * A handler whose next sweep, right after reading the orphans, lets `between` run (and commit). The
   * sweep a handler starts with is over (and saw no orphan) before this returns.
   */
  async function sweeper(between: (orphanIds: string[]) => Promise<unknown>): Promise<A2AHandler> {
    let armed = false;
    const stores = createPostgresStores(suite.backend.db);
    const real = stores.tasks;
    const tasks: TaskStore = {
      create: (input) => real.create(input),
      get: (w, id) => real.get(w, id),
      renewLeases: (owner, ids, ms) => real.renewLeases(owner, ids, ms),
      async listOrphaned(limit) {
        const orphans = await real.listOrphaned(limit);
        if (armed) await between(orphans.map((orphan) => orphan.task.id));
        armed = false;
        return orphans;
      },
    };
    const handler = createA2AHandler({
      stores: { ...stores, tasks },
      executor: never,
      authenticate: async () => ({ ok: true, workspaceId }),
      recoveryIntervalMs: 0,
    });
    suite.handlers.push(handler);
    await handler.recoverOrphanedTasks();
    armed = true;
    return handler;
  }

  async function expiredTask(owner: string): Promise<string> {
    const { tasks } = createPostgresStores(suite.backend.db);
    const { task } = await tasks.create(fixtures.newTask(workspaceId, { lease: { owner, durationMs: -1_000 } }));
    return task.id;
  }

  it.skipIf(kind === "postgres" && !reachable)(
    "ends nothing whose lease was renewed between the sweep's read and its end",
    async () => {
      const { tasks } = createPostgresStores(suite.backend.db);
      let id = "";
      const handler = await sweeper(async (ids) => {
        expect(ids).toContain(id); // the sweep did read it as an orphan …
        expect(await tasks.renewLeases("slow-runner", [id], HOUR_MS)).toEqual([id]); // … then its runner renewed
      });
      id = await expiredTask("slow-runner");
      expect(await handler.recoverOrphanedTasks()).toBe(0);
      expect((await tasks.get(workspaceId, id))?.task.status.state).toBe("TASK_STATE_WORKING");
    },
  );

  it.skipIf(kind === "postgres" && !reachable)("still ends a task whose lease stayed expired", async () => {
    const { tasks } = createPostgresStores(suite.backend.db);
    const handler = await sweeper(async () => undefined);
    const id = await expiredTask("gone-runner");
    expect(await handler.recoverOrphanedTasks()).toBe(1);
    expect((await tasks.get(workspaceId, id))?.task.status.state).toBe("TASK_STATE_FAILED");
  });
});
