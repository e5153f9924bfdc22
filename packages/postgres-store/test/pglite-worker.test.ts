import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freshPgliteOptions, seedPgliteDataDir } from "@a2a-partner/test-support/pglite-template";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database, Queryable } from "../src/database.js";
import { GroupCommitWriter, openDatabase } from "../src/index.js";
import { endWorkerOf, openPGliteWorkerDatabase } from "../src/pglite/pglite-worker-database.js";
import { defineStoreSuite } from "./support/store-suite.js";

// `openDatabase`'s embedded default: PGlite on a worker thread. The whole store suite runs through it (the
// suite's instances share the one worker, as PGlite wrappers share one instance on the calling thread).
defineStoreSuite("PGlite in a worker thread", async () => {
  const db = await openDatabase({ dataDir: "memory://", ...(await freshPgliteOptions()) });
  expect(db.inWorker).toBe(true);
  return {
    // Each suite instance closes what it opened; the worker itself closes with the target.
    async open() {
      return { ...db, close: async () => undefined };
    },
    close: () => db.close(),
  };
});

describe("PGlite in a worker thread", () => {
  let db: Database;
  beforeAll(async () => {
    // No vacuum passes: a test below times how long a call keeps this thread, which one would disturb.
    db = await openDatabase({ dataDir: "memory://", autovacuum: false, ...(await freshPgliteOptions()) });
  });
  afterAll(async () => {
    await db?.close();
  });

  it("hands back values as PGlite on the calling thread does", async () => {
    const onThread = await openDatabase({ dataDir: "memory://", worker: false, ...(await freshPgliteOptions()) });
    try {
      const sql = `select now() as at, 9007199254740993::int8 as big, 42::int8 as small, '\\x00ff'::bytea as bytes,
                          '{"a": [1, "two"]}'::jsonb as doc, null::text as nothing, 'é'::text as text, $1::int as param`;
      const inWorker = await db.query(sql, [7]);
      const calling = await onThread.query(sql, [7]);
      expect(inWorker.rows[0]?.at).toBeInstanceOf(Date);
      expect({ ...inWorker.rows[0], at: null }).toEqual({ ...calling.rows[0], at: null });
      expect(inWorker.rows[0]).toMatchObject({ big: 9007199254740993n, small: 42, bytes: new Uint8Array([0, 255]) });
      expect(inWorker.rowCount).toBe(1);
    } finally {
      await onThread.close();
    }
  });

  it("keeps a database error's SQLSTATE and details, so callers can act on them", async () => {
    await db.exec("create table parents (id int primary key)");
    await db.query("insert into parents values (1)");
    const duplicate = await db.query("insert into parents values (1)").catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(Error);
    expect(duplicate).toMatchObject({
      code: "23505",
      constraint: "parents_pkey",
      detail: "Key (id)=(1) already exists.",
    });
    const badText = await db.query("select $1::int", ["nope"]).catch((error: unknown) => error);
    expect(badText).toMatchObject({ code: "22P02" });
    // A value structured clone cannot carry fails its own statement, and the database goes on.
    await expect(db.query("select $1::text", [() => 1])).rejects.toThrow();
    expect((await db.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
  });

  it("commits a transaction whose function resolves and rolls back one that throws", async () => {
    await db.exec("create table ledger (id int primary key)");
    await db.transaction(async (tx) => {
      await tx.query("insert into ledger values (1)");
      await tx.query("insert into ledger values (2)");
    });
    const failure = new Error("changed my mind");
    await expect(
      db.transaction(async (tx) => {
        await tx.query("insert into ledger values (3)");
        throw failure;
      }),
    ).rejects.toBe(failure);
    // A statement that fails inside rolls back the rest of it too.
    await expect(
      db.transaction(async (tx) => {
        await tx.query("insert into ledger values (4)");
        await tx.query("insert into ledger values (1)");
      }),
    ).rejects.toMatchObject({ code: "23505" });
    expect((await db.query<{ id: number }>("select id from ledger order by id")).rows.map((r) => r.id)).toEqual([1, 2]);
  });

  it("runs a statement asked for outside an open transaction after it, not inside it", async () => {
    await db.exec("create table visits (id int primary key)");
    let outside: Promise<unknown> | undefined;
    let heldMs = Number.NaN;
    await db.transaction(async (tx) => {
      await tx.query("insert into visits values (1)");
      // Waits for the transaction (PGlite has one connection): it must neither see its rows uncommitted
      // nor hold up this thread while the transaction still needs it (a wait here would last its bound).
      const asked = performance.now();
      outside = db.query<{ n: number }>("select count(*)::int as n from visits");
      heldMs = performance.now() - asked;
      await tx.query("insert into visits values (2)");
    });
    expect(((await outside) as { rows: { n: number }[] }).rows).toEqual([{ n: 2 }]);
    expect(heldMs).toBeLessThan(10);
  });

  it("delivers NOTIFYs to listeners until they stop", async () => {
    const heard: string[] = [];
    const stop = await db.listen("worker_test", (payload) => heard.push(payload));
    await db.notify("worker_test", "one");
    await db.transaction(async (tx) => {
      await tx.query("select pg_notify('worker_test', 'two')");
    });
    await expect.poll(() => heard).toEqual(["one", "two"]);
    await stop();
    await db.notify("worker_test", "three");
    await db.query("select 1");
    expect(heard).toEqual(["one", "two"]);
  });

  it("never holds up the calling thread while a statement runs, in a transaction or not", async () => {
    // How long each call keeps this thread before it returns its promise: a server's other requests wait
    // that long. The statements take 100 ms in the worker.
    const held = async (query: Queryable) => {
      const started = performance.now();
      const answer = query.query("select pg_sleep(0.1)");
      const heldMs = performance.now() - started;
      await answer;
      return heldMs;
    };
    const alone = await held(db);
    const inTransaction = await db.transaction((tx) => held(tx));
    expect(alone).toBeLessThan(10);
    expect(inTransaction).toBeLessThan(10);
  });

  it("keeps commits in order with two in flight: a row may refer to one handed over in an earlier commit", async () => {
    await db.exec(
      "create table orders (id uuid primary key); create table lines (id serial primary key, order_id uuid not null references orders (id))",
    );
    const writer = new GroupCommitWriter(db);
    // Handed over without waiting, as the robot fleet hands over a workflow execution and its node
    // executions, each order's lines in a later commit than the order (the turn between them lets the
    // order's batch go out): a commit that overtook an earlier one would fail the lines' foreign key.
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 100; i++) {
      const id = randomUUID();
      writes.push(writer.insertRows("orders", ["id"], [{ id }]));
      await new Promise((resolve) => setImmediate(resolve));
      writes.push(writer.insertRows("lines", ["order_id"], [{ order_id: id }, { order_id: id }]));
    }
    await Promise.all(writes);
    expect((await db.query("select count(*)::int as n from lines")).rows).toEqual([{ n: 200 }]);
  });

  it("keeps that order when a batch fails on a bad row and the one behind it fails for want of its rows", async () => {
    await db.exec(
      "create table carts (id uuid primary key); create table items (id serial primary key, cart_id uuid not null references carts (id))",
    );
    const writer = new GroupCommitWriter(db);
    const cart = randomUUID();
    // One commit: a cart that cannot be stored, then a good one. While it runs, the good cart's item
    // goes out as the next commit and fails (the cart is not there: the first commit failed whole).
    // Committed one by one, the first batch's items must land before the second's.
    const bad = writer.insertRows("carts", ["id"], [{ id: "not-a-uuid" }]);
    const good = writer.insertRows("carts", ["id"], [{ id: cart }]);
    await new Promise((resolve) => setImmediate(resolve));
    const item = writer.insertRows("items", ["cart_id"], [{ cart_id: cart }]);
    await expect(bad).rejects.toMatchObject({ code: "22P02" });
    await expect(good).resolves.toBeUndefined();
    await expect(item).resolves.toBeUndefined();
    expect((await db.query("select cart_id from items")).rows).toEqual([{ cart_id: cart }]);
  });

  it("rejects the open with PGlite's own error when PGlite cannot open", async () => {
    // IndexedDB does not exist in Node: PGlite fails inside the worker, and the caller gets that failure.
    await expect(openDatabase({ dataDir: "idb://not-in-node" })).rejects.toThrow(/indexedDB/);
  });

  it("refuses statements once closed", async () => {
    const closing = await openDatabase({ dataDir: "memory://", ...(await freshPgliteOptions()) });
    await closing.close();
    await expect(closing.query("select 1")).rejects.toThrow(/closed/);
    await closing.close(); // twice is fine
  });
});

describe("a worker thread that dies (PGlite's WASM aborting)", () => {
  const parent = mkdtemp(join(tmpdir(), "pglite-worker-lost-"));
  afterAll(async () => rm(await parent, { recursive: true, force: true }));

  /**
   * A database on a fresh directory (the run's initdb template copied in: initdb is not what these test),
   * or in memory, with what it reports about its worker.
   */
  async function openWatched(dataDir: string) {
    const lost: Error[] = [];
    let restarts = 0;
    if (dataDir !== "memory://") await seedPgliteDataDir(dataDir);
    const db = await openPGliteWorkerDatabase(dataDir, {
      ...(dataDir === "memory://" ? await freshPgliteOptions() : {}),
      autovacuum: false,
      onWorkerLost: (error) => lost.push(error),
      onWorkerRestarted: () => restarts++,
    });
    return { db, lost, restarts: () => restarts };
  }

  it("fails statements as in an outage, then serves again from a new worker with every committed row", async () => {
    const { db, lost, restarts } = await openWatched(join(await parent, "restart"));
    try {
      await db.exec("create table kept (note text)");
      await db.query("insert into kept values ($1)", ["committed before the crash"]);
      const heard: string[] = [];
      const events: string[] = [];
      await db.listen("lost_test", (payload) => heard.push(payload), {
        onLost: () => events.push("lost"),
        onReconnect: () => events.push("reconnected"),
      });
      const inFlight = db.query("select pg_sleep(5)", [], { background: true });

      await endWorkerOf(db);

      await expect(inFlight).rejects.toThrow(/worker exited/);
      await expect(db.query("select 1")).rejects.toThrow(/worker exited/);
      expect(lost).toHaveLength(1);
      expect(events).toEqual(["lost"]);
      await expect.poll(restarts, { timeout: 10_000 }).toBe(1);
      expect((await db.query("select note from kept")).rows).toEqual([{ note: "committed before the crash" }]);
      await db.query("insert into kept values ($1)", ["after"]);
      // The listener listens again in the new worker, and was told to look for what it missed.
      expect(events).toEqual(["lost", "reconnected"]);
      await db.notify("lost_test", "heard again");
      await expect.poll(() => heard).toEqual(["heard again"]);
    } finally {
      await db.close();
    }
    // Closed properly after a restart: the directory opens again with both rows.
    const again = await openDatabase({ dataDir: join(await parent, "restart"), lock: false });
    try {
      expect((await again.query("select count(*)::int as n from kept")).rows).toEqual([{ n: 2 }]);
    } finally {
      await again.close();
    }
  });

  it("restarts whatever the application's callbacks throw", async () => {
    const failing = () => {
      throw new Error("a bug in the application's callback");
    };
    let restarted = false;
    const dataDir = join(await parent, "throwing-callbacks");
    await seedPgliteDataDir(dataDir);
    const db = await openPGliteWorkerDatabase(dataDir, {
      autovacuum: false,
      onWorkerLost: failing,
      onWorkerRestarted: () => {
        restarted = true;
        failing();
      },
    });
    try {
      const heard: string[] = [];
      await db.listen("throwing_test", (payload) => heard.push(payload), { onLost: failing, onReconnect: failing });
      await endWorkerOf(db);
      await expect.poll(() => restarted, { timeout: 10_000 }).toBe(true);
      await db.notify("throwing_test", "still listening");
      await expect.poll(() => heard).toEqual(["still listening"]);
    } finally {
      await db.close();
    }
  });

  it("closes at once while the restart waits", async () => {
    const { db, restarts } = await openWatched(join(await parent, "close-while-down"));
    await endWorkerOf(db);
    await db.close();
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(restarts()).toBe(0);
    await expect(db.query("select 1")).rejects.toThrow(/closed/);
  });

  it("does not restart an in-memory database: its data went with the thread", async () => {
    const { db, lost, restarts } = await openWatched("memory://");
    try {
      await db.exec("create table gone (id int)");
      await endWorkerOf(db);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(lost).toHaveLength(1);
      expect(restarts()).toBe(0);
      await expect(db.query("select * from gone")).rejects.toThrow(/worker exited/);
    } finally {
      await db.close();
    }
  });
});

describe("a process with the embedded database open", () => {
  const parent = mkdtemp(join(tmpdir(), "pglite-worker-"));
  afterAll(async () => rm(await parent, { recursive: true, force: true }));

  it("exits when its work is done (even one failed open), as with PGlite on the calling thread, and its data is there", async () => {
    const dataDir = join(await parent, "data");
    await seedPgliteDataDir(dataDir); // initdb is not what this tests
    const entry = new URL("../dist/index.js", import.meta.url).href; // what npm consumers run
    // No close(): the worker must not keep the process alive once nothing is asked of it. (The data
    // directory stays locked by a lock file whose holder is gone; the next open takes it over.)
    const script = `
      const { openDatabase } = await import(${JSON.stringify(entry)});
      // A worker whose PGlite could not open must not keep the process alive either.
      await openDatabase({ dataDir: "idb://not-in-node" }).catch(() => undefined);
      const db = await openDatabase({ dataDir: ${JSON.stringify(dataDir)}, autovacuum: false });
      await db.exec("create table kept (note text)");
      await db.query("insert into kept values ($1)", ["written before exit"]);
    `;
    const run = promisify(execFile);
    await run(process.execPath, ["--input-type=module", "-e", script], { timeout: 30_000 });
    const db = await openDatabase({ dataDir });
    try {
      expect((await db.query("select note from kept")).rows).toEqual([{ note: "written before exit" }]);
    } finally {
      await db.close();
    }
  });
});
