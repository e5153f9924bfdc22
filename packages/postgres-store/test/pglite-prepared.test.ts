import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgliteDatabase } from "../src/index.js";

// Named statements on PGlite are parsed once and then only bound and executed. What a caller must not
// notice: results, errors, sharing one connection between wrappers, and transactions of other callers.
describe("named statements on PGlite", () => {
  let instance: PGlite;

  beforeAll(async () => {
    instance = await PGlite.create("memory://", await freshPgliteOptions());
    await instance.exec("create table items (id int primary key, label text not null, tags jsonb, at timestamptz)");
  });
  afterAll(async () => {
    await instance.close();
  });

  const INSERT = "insert into items (id, label, tags, at) values ($1, $2, $3::jsonb, $4) returning id, tags, at";
  const COUNT = "select count(*)::int as n from items";

  it("answers as the unnamed statement does, every time, and two wrappers of one instance share it", async () => {
    const first = pgliteDatabase(instance, { closeInstance: false });
    const second = pgliteDatabase(instance, { closeInstance: false });
    const at = new Date("2026-11-25T10:00:00.000Z");
    const named = await first.query(INSERT, [1, "a", JSON.stringify({ k: [1, 2] }), at], { name: "t_insert" });
    const again = await second.query(INSERT, [2, "b", null, at.toISOString()], { name: "t_insert" });
    const unnamed = await first.query(INSERT, [3, "c", JSON.stringify({ k: [1, 2] }), at]);
    expect(named.rows).toEqual([{ id: 1, tags: { k: [1, 2] }, at }]);
    expect(again.rows).toEqual([{ id: 2, tags: null, at }]);
    expect(named.rows[0]).toEqual({ ...(unnamed.rows[0] as object), id: 1 });
    expect(named.rowCount).toBe(1);
    expect((await first.query(COUNT, [], { name: "t_count" })).rows).toEqual([{ n: 3 }]);
  });

  it("runs a statement that returns no rows once, and counts the rows it changed", async () => {
    const db = pgliteDatabase(instance, { closeInstance: false });
    const update = "update items set label = label || '!' where id = $1";
    expect((await db.query(update, [1], { name: "t_mark" })).rowCount).toBe(1);
    expect((await db.query(update, [999], { name: "t_mark" })).rowCount).toBe(0);
    expect((await db.query("select label from items where id = 1")).rows).toEqual([{ label: "a!" }]);
  });

  it("throws the database's error with its code, and the statement still works afterwards", async () => {
    const db = pgliteDatabase(instance, { closeInstance: false });
    await expect(db.query(INSERT, [1, "dup", null, null], { name: "t_insert" })).rejects.toMatchObject({
      code: "23505",
    });
    await expect(db.query(INSERT, [10, null, null, null], { name: "t_insert" })).rejects.toMatchObject({
      code: "23502",
    });
    expect((await db.query(INSERT, [11, "ok", null, null], { name: "t_insert" })).rows).toEqual([
      { id: 11, tags: null, at: null },
    ]);
  });

  it("refuses a statement whose columns changed under it instead of naming its rows by the old ones", async () => {
    // The columns are described once, when the statement is prepared; this is PostgreSQL's promise that
    // makes that safe.
    const db = pgliteDatabase(instance, { closeInstance: false });
    await db.exec("create table shapes (id int, label text); insert into shapes values (1, 'a')");
    const select = "select * from shapes";
    expect((await db.query(select, [], { name: "t_shape" })).rows).toEqual([{ id: 1, label: "a" }]);
    await db.exec("alter table shapes drop column label, add column size int default 7");
    await expect(db.query(select, [], { name: "t_shape" })).rejects.toMatchObject({ code: "0A000" });
    expect((await db.query(select)).rows).toEqual([{ id: 1, size: 7 }]);
  });

  it("describes at each execution a statement whose columns are those of what it reads (an EXECUTE)", async () => {
    const db = pgliteDatabase(instance, { closeInstance: false });
    await db.exec("prepare t_sql_level as select 1 as a");
    expect((await db.query("execute t_sql_level", [], { name: "t_execute" })).rows).toEqual([{ a: 1 }]);
    await db.exec("deallocate t_sql_level; prepare t_sql_level as select 'y'::text as b");
    expect((await db.query("execute t_sql_level", [], { name: "t_execute" })).rows).toEqual([{ b: "y" }]);
    await db.exec("deallocate t_sql_level");
  });

  it("prepares again a statement that was deallocated, and leaves alone a name prepared by other code", async () => {
    const db = pgliteDatabase(instance, { closeInstance: false });
    await db.exec("deallocate all");
    expect((await db.query(COUNT, [], { name: "t_count" })).rows).toEqual([{ n: 4 }]);
    await db.exec("prepare t_other as select 42 as answer");
    expect((await db.query("select 7 as answer", [], { name: "t_other" })).rows).toEqual([{ answer: 7 }]);
  });

  it("waits for another caller's transaction instead of running inside it", async () => {
    const db = pgliteDatabase(instance, { closeInstance: false });
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let inserted: () => void = () => undefined;
    const insertedYet = new Promise<void>((resolve) => {
      inserted = resolve;
    });
    const transaction = db.transaction(async (tx) => {
      await tx.query("insert into items (id, label) values (100, 'in a transaction')");
      inserted();
      await gate;
      await tx.query("delete from items where id = 100");
    });
    await insertedYet;
    let counted: number | undefined;
    const count = db.query<{ n: number }>(COUNT, [], { name: "t_count" }).then(({ rows }) => {
      counted = rows[0]?.n;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(counted).toBeUndefined(); // not answered from inside the open transaction
    release();
    await transaction;
    await count;
    expect(counted).toBe(4); // the row inserted and deleted inside the transaction was never seen
  });
});
