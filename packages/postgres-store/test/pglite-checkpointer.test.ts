import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedPgliteDataDir } from "@a2a-partner/test-support/pglite-template";
import { afterAll, describe, expect, it } from "vitest";
import { type Database, type OpenDatabaseOptions, openDatabase } from "../src/index.js";
import { PGliteCheckpointer } from "../src/pglite/pglite-checkpointer.js";

// PGlite runs PostgreSQL as one single-user backend: nothing checkpoints until it shuts down, so without
// the store's stand-in every WAL segment written since the start stays in pg_wal.
describe("checkpoints on PGlite", () => {
  const parent = mkdtemp(join(tmpdir(), "pglite-checkpoints-"));
  afterAll(async () => rm(await parent, { recursive: true, force: true }));

  /**
   * A data directory whose max_wal_size is PostgreSQL's smallest (32 MB: a checkpoint is due after ~17 MB
   * of WAL), set the way an operator would, with ALTER SYSTEM, which takes effect at the next open.
   */
  async function openSmallWal(name: string, options: OpenDatabaseOptions): Promise<Database> {
    const dataDir = join(await parent, name);
    await seedPgliteDataDir(dataDir); // the run's initdb template: initdb is not what this tests
    const setup = await openDatabase({ dataDir, lock: false, autovacuum: false, checkpoints: false });
    await setup.exec("alter system set max_wal_size = '32MB'");
    await setup.exec("create table docs (id serial primary key, doc jsonb not null)");
    await setup.close();
    return openDatabase({ dataDir, lock: false, autovacuum: false, ...options });
  }

  /** Writes ~3.4 MB of WAL, letting timers run between statements as a server's event loop would. */
  const writeWal = async (db: Database) => {
    await db.query(
      "insert into docs (doc) select jsonb_build_object('n', g, 'pad', repeat('x', 500)) from generate_series(1, 5000) g",
    );
    await new Promise((resolve) => setTimeout(resolve, 5));
  };
  const walBytes = async (db: Database) =>
    (await db.query<{ bytes: number }>("select sum(size)::int8 as bytes from pg_ls_waldir()")).rows[0]?.bytes ?? 0;

  it("checkpoints when the WAL since the last checkpoint reaches PostgreSQL's trigger, and not again while idle", async () => {
    const db = await openSmallWal("rule", { checkpoints: false });
    const checkpointer = new PGliteCheckpointer(db, { intervalMs: 3_600_000 });
    try {
      expect(await checkpointer.runOnce()).toBeUndefined(); // just opened: the shutdown checkpoint is the last
      await writeWal(db);
      expect(await checkpointer.runOnce()).toBeUndefined(); // ~3.4 MB: not yet
      for (let i = 0; i < 5; i++) await writeWal(db);
      expect(await checkpointer.runOnce()).toBe("wal");
      const { rows } = await db.query<{ since: number }>(
        "select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), redo_lsn)::int8 as since from pg_control_checkpoint()",
      );
      expect(rows[0]?.since).toBeLessThan(4096);
      expect(await checkpointer.runOnce()).toBeUndefined();
    } finally {
      await checkpointer.stop();
      await db.close();
    }
  });

  // In the worker that openDatabase starts, after ~95 MB of WAL: three times max_wal_size, so kept and
  // recycled differ by far. Two tests, one budget each: each writes all of it.
  const walAfterWrites = async (name: string, options: OpenDatabaseOptions) => {
    const db = await openSmallWal(name, options);
    try {
      expect(db.inWorker).toBe(true);
      for (let i = 0; i < 28; i++) await writeWal(db);
      // Longer than the default interval: a checkpointer left running where `checkpoints: false` should
      // have stopped it (inside the worker, say) would have checkpointed by now.
      if (options.checkpoints === false) await new Promise((resolve) => setTimeout(resolve, 6_000));
      return await walBytes(db);
    } finally {
      await db.close();
    }
  };

  it("keeps every WAL segment without checkpoints", async () => {
    expect(await walAfterWrites("unchecked", { checkpoints: false })).toBeGreaterThan(85 * 2 ** 20);
  });

  it("keeps pg_wal near max_wal_size under sustained writes with them", async () => {
    expect(await walAfterWrites("checked", { checkpoints: { intervalMs: 20 } })).toBeLessThan(64 * 2 ** 20);
  });
});
