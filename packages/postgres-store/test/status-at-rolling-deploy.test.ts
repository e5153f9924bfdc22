import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyTaskEvent, type Task } from "@a2a-partner/a2a-core";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPostgresStores, type Database, defaultMigrationsDir, migrate, openDatabase } from "../src/index.js";

/** Tasks whose status_at or final_status_at differ from what the table's rule derives from the snapshot. */
const DERIVED_DIFFERENTLY = `select id::text from tasks
  where status_at is distinct from tasks_status_at(snapshot)
     or final_status_at is distinct from case when terminal then tasks_status_at(snapshot) end`;

// During a rolling deploy this release's store writes to a database the previous release migrated (its
// files up to 0004, with the trigger that derives status_at on every write) until 0005 is applied.
describe("this release's store on the previous release's schema, then on its own", () => {
  const { newTask, update, finished } = storeFixtures();
  const workspaceId = crypto.randomUUID();
  let db: Database;
  let dir: string;

  beforeAll(async () => {
    db = await openDatabase({ dataDir: "memory://", ...(await freshPgliteOptions()) });
    dir = await mkdtemp(join(tmpdir(), "a2a-migrations-"));
    await cp(defaultMigrationsDir(), dir, { recursive: true });
    await rm(join(dir, "0005_status_at_from_the_writer.sql"));
    await migrate(db, { sources: [{ name: "a2a-store", dir }] });
  });
  afterAll(async () => {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A task started, moved through the group commit and through a locked append, and ended. */
  async function runTask(): Promise<void> {
    const stores = createPostgresStores(db);
    try {
      const { task } = await stores.tasks.create(newTask(workspaceId));
      const progress = update(task, 50);
      const moved: Task = applyTaskEvent(task, progress.result);
      const events = [{ taskId: task.id, seq: 2, ...progress }];
      expect(await stores.events.appendNumbered({ taskId: task.id, prevSeq: 1, events, snapshot: moved })).toBe(true);
      await stores.events.append(task.id, update(moved, 80));
      await stores.events.append(task.id, finished(moved));
    } finally {
      await stores.events.close();
    }
  }

  it("keeps ListTasks' columns right before 0005 is applied and after", async () => {
    await runTask();
    expect((await db.query(DERIVED_DIFFERENTLY)).rows).toEqual([]);
    expect(await migrate(db)).toEqual({ applied: ["a2a-store/0005_status_at_from_the_writer"], adopted: [] });
    await runTask();
    expect((await db.query(DERIVED_DIFFERENTLY)).rows).toEqual([]);
    const ended = await db.query<{ n: number }>(
      "select count(*)::int as n from tasks where final_status_at is not null",
    );
    expect(ended.rows[0]?.n).toBe(2);
  });
});
