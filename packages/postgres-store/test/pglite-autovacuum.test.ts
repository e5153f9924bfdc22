import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { type Database, openDatabase, pgliteDatabase } from "../src/index.js";
import { PGliteAutovacuum } from "../src/pglite/pglite-autovacuum.js";

// PGlite has no autovacuum: without the store's stand-in, rows rewritten again and again (a task row at
// every step) leave dead versions behind for ever, and tables are never analyzed.
describe("autovacuum on PGlite", () => {
  const open: Database[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((db) => db.close()));
  });

  async function database(autovacuum: Parameters<typeof pgliteDatabase>[1]["autovacuum"] = false) {
    const db = pgliteDatabase(await PGlite.create("memory://", await freshPgliteOptions()), { autovacuum });
    open.push(db);
    await db.exec("create table items (id int primary key, n int not null, note text not null)");
    await db.exec("insert into items select g, 0, repeat('x', 200) from generate_series(1, 2000) g");
    return db;
  }

  const tableBytes = async (db: Database) =>
    (await db.query<{ bytes: number }>("select pg_relation_size('items')::int as bytes")).rows[0]?.bytes ?? 0;
  const rewriteAll = (db: Database) => db.exec("update items set n = n + 1");

  it("vacuums and analyzes a table whose rows were rewritten, and leaves it alone when nothing changed", async () => {
    const db = await database();
    const autovacuum = new PGliteAutovacuum(db, { intervalMs: 3_600_000 });
    try {
      // The first pass also tends the catalogs the table's creation changed; from then on only `items` moves.
      await autovacuum.runOnce();
      await rewriteAll(db);
      expect(await autovacuum.runOnce()).toContainEqual({ table: "public.items", vacuum: true, analyze: true });
      const { rows } = await db.query<{ dead: number; analyzed: boolean; estimate: number }>(
        `select s.n_dead_tup::int as dead, s.last_analyze is not null as analyzed, c.reltuples::int as estimate
           from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = 'items'`,
      );
      expect(rows).toEqual([{ dead: 0, analyzed: true, estimate: 2000 }]);
      expect((await autovacuum.runOnce()).map((action) => action.table)).not.toContain("public.items");
      expect(await autovacuum.runOnce()).toEqual([]);
    } finally {
      await autovacuum.stop();
    }
  });

  it("finds nothing to do once everything is tended, however many statistics ANALYZE wrote", async () => {
    const db = await database();
    // ANALYZE of 150 columns writes 150 rows of pg_statistic, a catalog ANALYZE never resets the count of.
    const columns = Array.from({ length: 150 }, (_, i) => `c${i} int default ${i}`).join(", ");
    await db.exec(`create table wide (${columns}); insert into wide (c0) select generate_series(1, 100)`);
    const autovacuum = new PGliteAutovacuum(db, { intervalMs: 3_600_000 });
    try {
      for (let pass = 0; pass < 3; pass++) await autovacuum.runOnce();
      expect(await autovacuum.runOnce()).toEqual([]);
    } finally {
      await autovacuum.stop();
    }
  });

  it("keeps a table that is rewritten over and over from growing without end", async () => {
    const withPasses = await database();
    const without = await database();
    const autovacuum = new PGliteAutovacuum(withPasses, { intervalMs: 3_600_000 });
    try {
      await autovacuum.runOnce();
      const start = await tableBytes(withPasses);
      for (let round = 0; round < 10; round++) {
        await rewriteAll(withPasses);
        await rewriteAll(without);
        await autovacuum.runOnce();
      }
      // Without passes every rewrite adds a whole table of dead versions; with them, space is reused.
      expect(await tableBytes(without)).toBeGreaterThan(8 * start);
      expect(await tableBytes(withPasses)).toBeLessThanOrEqual(2 * start);
    } finally {
      await autovacuum.stop();
    }
  });

  it("runs by itself when the Database is opened with it, and stops when the Database closes", async () => {
    const errors: unknown[] = [];
    const db = await database({ intervalMs: 50, onError: (error) => errors.push(error) });
    await rewriteAll(db);
    // VACUUM reports itself to the statistics at once (dead-row counters are flushed only now and then).
    await expect
      .poll(
        async () =>
          (await db.query<{ n: number }>("select vacuum_count::int as n from pg_stat_user_tables")).rows[0]?.n,
        { timeout: 5_000 },
      )
      .toBeGreaterThan(0);
    await db.close();
    open.splice(open.indexOf(db), 1);
    // Closed, it runs no more passes: one would fail on the closed instance and be reported.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(errors).toEqual([]);
  });

  it("is on by default for the embedded store openDatabase opens", async () => {
    const db = await openDatabase({ dataDir: "memory://", ...(await freshPgliteOptions()) });
    open.push(db);
    await db.exec("create table items (id int primary key, n int not null)");
    await db.exec("insert into items select g, 0 from generate_series(1, 2000) g");
    await db.exec("update items set n = 1");
    await expect
      .poll(
        async () =>
          (await db.query<{ n: number }>("select vacuum_count::int as n from pg_stat_user_tables")).rows[0]?.n,
        { timeout: 15_000, interval: 250 },
      )
      .toBeGreaterThan(0);
  }, 20_000);

  it("stops by itself when the owner closes the PGlite instance it was given", async () => {
    const errors: unknown[] = [];
    const instance = await PGlite.create("memory://", await freshPgliteOptions());
    const db = pgliteDatabase(instance, {
      closeInstance: false,
      autovacuum: { intervalMs: 50, onError: (e) => errors.push(e) },
    });
    await instance.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(errors).toEqual([]);
    await db.close();
  });
});
