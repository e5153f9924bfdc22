import { randomUUID } from "node:crypto";
import { chmod, lstat, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { storeFixtures } from "@a2a-partner/a2a-core/testing";
import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
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

describe("the embedded data directory is private", () => {
  const parent = mkdtemp(join(tmpdir(), "pglite-private-"));
  afterAll(async () => rm(await parent, { recursive: true, force: true }));

  /** Every path under `root` (itself included) whose mode is not owner-only: 0700 directories, 0600 files. */
  async function notPrivate(root: string): Promise<string[]> {
    const found: string[] = [];
    const visit = async (path: string) => {
      const info = await lstat(path);
      const wanted = info.isDirectory() ? 0o700 : 0o600;
      if ((info.isDirectory() || info.isFile()) && (info.mode & 0o777) !== wanted) {
        found.push(`${relative(root, path) || "."} ${(info.mode & 0o777).toString(8)}`);
      }
      if (info.isDirectory()) for (const name of await readdir(path)) await visit(join(path, name));
    };
    await visit(root);
    return found;
  }

  it("made 0755 beforehand: 0700 with 0600 files after the first start, and again after every start", async () => {
    const dataDir = join(await parent, "data");
    await mkdir(dataDir);
    await chmod(dataDir, 0o755);
    const first = await openDatabase({ dataDir });
    try {
      // The signing secrets live here: the workspace's data goes through the WAL like the secrets do.
      await migrate(first);
      expect(await notPrivate(dataDir)).toEqual([]);
    } finally {
      await first.close();
    }
    expect(await notPrivate(dataDir)).toEqual([]);

    // Loosened while stopped (a restore, a chmod -R): the next start makes it private again.
    await chmod(dataDir, 0o755);
    await chmod(join(dataDir, "base"), 0o777);
    await chmod(join(dataDir, "PG_VERSION"), 0o666);
    const second = await openDatabase({ dataDir });
    try {
      expect(await notPrivate(dataDir)).toEqual([]);
    } finally {
      await second.close();
    }
    // A first start runs PGlite's initdb: slow on a busy host.
  }, 240_000);
});

describe("openDatabase({ dataDir: 'memory://', loadDataDir })", () => {
  it("starts from the dumped data directory, on the worker thread and on the calling one", async () => {
    const original = await PGlite.create("memory://", await freshPgliteOptions());
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
