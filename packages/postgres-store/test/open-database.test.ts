import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, describe, expect, it } from "vitest";
import { createPostgresStores, migrate, openDatabase } from "../src/index.js";

describe("openDatabase without a url (embedded PGlite)", () => {
  const parent = mkdtemp(join(tmpdir(), "pglite-data-"));
  afterAll(async () => rm(await parent, { recursive: true, force: true }));
  const { newTask } = storeFixtures();
  const workspaceId = randomUUID();

  it("creates the data directory, and what it stores is there after a restart", async () => {
    const dataDir = join(await parent, "nested", "pglite");
    const first = await openDatabase({ dataDir });
    expect(first.kind).toBe("pglite");
    expect((await migrate(first)).applied[0]).toBe("a2a-store/0001_tasks");
    const firstStores = createPostgresStores(first);
    const stored = await firstStores.tasks.create(newTask(workspaceId));
    await firstStores.events.close();
    await first.close();

    const second = await openDatabase({ dataDir });
    try {
      expect(await migrate(second)).toEqual({ applied: [], adopted: [] });
      const secondStores = createPostgresStores(second);
      expect(await secondStores.tasks.get(workspaceId, stored.task.id)).toEqual(stored);
      await secondStores.events.close();
    } finally {
      await second.close();
    }
  });
});

describe("openDatabase({ dataDir: 'memory://', loadDataDir })", () => {
  it("starts from the dumped data directory, on the worker thread and on the calling one", async () => {
    const original = await PGlite.create("memory://");
    await original.exec("create table kept (note text); insert into kept values ('from the dump')");
    const dump = await original.dumpDataDir("none");
    await original.close();

    for (const worker of [true, false]) {
      const db = await openDatabase({ dataDir: "memory://", loadDataDir: dump, worker });
      try {
        expect((await db.query<{ note: string }>("select note from kept")).rows).toEqual([{ note: "from the dump" }]);
      } finally {
        await db.close();
      }
    }
  });

  it("is refused for a data directory on disk, where it would be ignored or clash", async () => {
    await expect(openDatabase({ dataDir: join(tmpdir(), "never-made"), loadDataDir: new Blob([]) })).rejects.toThrow(
      /loadDataDir applies to an in-memory PGlite/,
    );
  });
});
