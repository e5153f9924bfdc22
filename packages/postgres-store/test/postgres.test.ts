import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { within } from "@a2a-partner/a2a-core/testing";
import { POSTGRES_URL, postgresAvailable } from "@a2a-partner/test-support/postgres";
import { expect, it } from "vitest";
import { type Database, openDatabase } from "../src/index.js";
import { defineStoreSuite } from "./support/store-suite.js";

const url = POSTGRES_URL;
// In CI the PostgreSQL run is mandatory: an unreachable server fails the suite instead of skipping it.
const reachable = await postgresAvailable();

// A fresh schema per file; every Database of the suite is a separate pg.Pool (plus its own listener
// connection) whose search_path points there, like separate server instances.
const schema = `store_test_${randomUUID().replaceAll("-", "")}`;
const appName = (label: string) => `${schema.slice(0, 40)}_${label}`;

function openInSchema(label: string): Promise<Database> {
  return openDatabase({
    url,
    pool: { max: 8, options: `-c search_path=${schema}`, application_name: appName(label) },
  });
}

/** Backends of the listener connection(s) of Databases opened with `label` (last query was LISTEN). */
async function listenerBackends(admin: Database, label: string): Promise<number[]> {
  const { rows } = await admin.query<{ pid: number }>(
    "select pid from pg_stat_activity where application_name = $1 and query ilike 'listen %' order by pid",
    [appName(label)],
  );
  return rows.map((row) => row.pid);
}

defineStoreSuite(
  "PostgreSQL",
  async () => {
    const admin = await openDatabase({ url });
    await admin.exec(`create schema ${schema}`);
    const opened: Database[] = [];
    let count = 0;
    return {
      async open() {
        const db = await openInSchema(`db${count++}`);
        opened.push(db);
        return db;
      },
      async close() {
        for (const db of opened) await db.close();
        await admin.exec(`drop schema if exists ${schema} cascade`);
        await admin.close();
      },
    };
  },
  {
    skip: !reachable,
    extra: (context) => {
      it("lets a start asked for while the group commit is busy ride it: one transaction with the events", async () => {
        const { applyTaskEvent } = await import("@a2a-partner/a2a-core");
        const { db, stores, newTask, update, workspaceA } = context();
        const { task } = await stores.tasks.create(newTask(workspaceA));
        const event = update(task, 30);
        const appended = stores.events.appendNumbered({
          taskId: task.id,
          prevSeq: 1,
          events: [{ taskId: task.id, seq: 2, ...event }],
          snapshot: applyTaskEvent(task, event.result),
        });
        expect(stores.events.writer.busy).toBe(true);
        const started = stores.idempotency.createOrGet(`msg-${randomUUID()}`, newTask(workspaceA));
        expect(await appended).toBe(true);
        const { record, created } = await started;
        expect(created).toBe(true);
        const { rows } = await db.query<{ task: string; event: string }>(
          `select (select xmin::text from tasks where id = $1) as task,
                  (select xmin::text from task_events where task_id = $2 and seq = 2) as event`,
          [record.task.id, task.id],
        );
        expect(rows[0]?.task).toBe(rows[0]?.event);
        expect((await stores.events.readAfter(record.task.id, 0)).map((stored) => stored.event)).toEqual(["task"]);
      });

      it("shares one listening connection among all waiters and survives losing it", async () => {
        const { createPostgresStores } = await import("../src/index.js");
        const db = await openInSchema("listen");
        const admin = await openDatabase({ url });
        try {
          const a = createPostgresStores(db, { recheckIntervalMs: 60_000 });
          const b = createPostgresStores(db, { recheckIntervalMs: 60_000 });
          const { task } = await a.tasks.create(context().newTask(context().workspaceA));
          const stops = Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).events.watch(task.id, () => {}));
          await sleep(300);
          const [listener, ...more] = await listenerBackends(admin, "listen");
          expect(listener).toBeTypeOf("number");
          expect(more).toEqual([]);
          for (const stop of stops) stop();

          // Kill the listening connection; the Database reconnects and LISTENs again by itself.
          await admin.query("select pg_terminate_backend($1)", [listener]);
          let replacement: number | undefined;
          for (let i = 0; i < 100 && replacement === undefined; i++) {
            await sleep(100);
            replacement = (await listenerBackends(admin, "listen")).find((pid) => pid !== listener);
          }
          expect(replacement).toBeTypeOf("number");
          const waiting = new Promise<void>((resolve) => {
            const stop = a.events.watch(task.id, (seq) => {
              if (seq === 2) {
                stop();
                resolve();
              }
            });
          });
          await sleep(200);
          await context().otherStores.events.append(task.id, context().update(task, 1));
          await within(5_000, waiting);
          await a.events.close();
          await b.events.close();
        } finally {
          await db.close();
          await admin.close();
        }
      });

      it("commits a task's events while requests hold every connection they may use", async () => {
        // Two connections for requests; the group commit's are its own.
        const db = await openDatabase({ url, pool: { max: 2, options: `-c search_path=${schema}` } });
        let release!: () => void;
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        const holding: Promise<void>[] = [];
        try {
          const { applyTaskEvent } = await import("@a2a-partner/a2a-core");
          const { createPostgresStores } = await import("../src/index.js");
          const stores = createPostgresStores(db);
          const { task } = await stores.tasks.create(context().newTask(context().workspaceA));
          // More open transactions than the pool has connections: those that get one hold it.
          let begun = 0;
          for (let i = 0; i < 4; i++) {
            holding.push(
              db.transaction(async (tx) => {
                await tx.query("select 1");
                begun++;
                await released;
              }),
            );
          }
          for (let i = 0; i < 100 && begun < 2; i++) await sleep(20);
          await sleep(200);
          expect(begun).toBe(2);
          const event = context().update(task, 30);
          const stored = stores.events.appendNumbered({
            taskId: task.id,
            prevSeq: 1,
            events: [{ taskId: task.id, seq: 2, ...event }],
            snapshot: applyTaskEvent(task, event.result),
          });
          expect(await within(3_000, stored)).toBe(true);
          release();
          await Promise.all(holding);
          expect((await stores.tasks.get(context().workspaceA, task.id))?.lastSeq).toBe(2);
          await stores.events.close();
        } finally {
          release();
          await Promise.allSettled(holding);
          await db.close();
        }
      });

      it("runs a lone start on the group commit's idle connection, and a start beside a commit on the pool", async () => {
        // One connection for requests, held by a transaction throughout: a statement that needs it waits.
        const db = await openDatabase({ url, pool: { max: 1, options: `-c search_path=${schema}` } });
        let release!: () => void;
        const released = new Promise<void>((resolve) => {
          release = resolve;
        });
        let begun = false;
        const holding = db.transaction(async (tx) => {
          await tx.query("select 1");
          begun = true;
          await released;
        });
        try {
          await db.query("select 1", [], { background: true }); // the group commit's connection, opened
          for (let i = 0; i < 100 && !begun; i++) await sleep(20);
          expect(begun).toBe(true);
          // Nothing of the group commit's running: the start goes on its connection, not behind the pool.
          const quiet = await within(
            3_000,
            db.query<{ one: number }>("select 1 as one", [], { onWarmConnection: true }),
          );
          expect(quiet.rows).toEqual([{ one: 1 }]);
          // A commit running: the start waits for the pool rather than take the commit's spare connection.
          const commit = db.query("select pg_sleep(0.5)", [], { background: true });
          let answered = false;
          const beside = db.query("select 1", [], { onWarmConnection: true }).then(() => {
            answered = true;
          });
          await commit;
          expect(answered).toBe(false);
          release();
          await beside;
          expect(answered).toBe(true);
        } finally {
          release();
          await holding;
          await db.close();
        }
      });

      it("keeps two request connections and the group commit's through a lull past the pool's idle timeout", async () => {
        const { createPostgresStores, postgresPoolOptions } = await import("../src/index.js");
        const { applyTaskEvent } = await import("@a2a-partner/a2a-core");
        const idleTimeoutMillis = 200;
        const db = await openDatabase({
          url,
          pool: {
            ...postgresPoolOptions(8),
            idleTimeoutMillis,
            options: `-c search_path=${schema}`,
            application_name: appName("lull"),
          },
        });
        const admin = await openDatabase({ url });
        // Every session but the LISTEN connection's (its last query its LISTEN or its heartbeat's `select 1`).
        const sessions = async () => {
          const { rows } = await admin.query<{ n: number }>(
            `select count(*)::int as n from pg_stat_activity
              where application_name = $1 and query not ilike 'listen %' and query <> 'select 1'`,
            [appName("lull")],
          );
          return rows[0]?.n;
        };
        try {
          const stores = createPostgresStores(db);
          const { task } = await stores.tasks.create(context().newTask(context().workspaceA));
          // Five statements at once, each on a session of its own, counted while they run: idle, a session
          // past the pool's two could close before the count on a loaded machine.
          const busy = Promise.all(Array.from({ length: 5 }, () => db.query("select pg_sleep(1)")));
          const event = context().update(task, 30);
          const append = (prevSeq: number, snapshot: typeof task) =>
            stores.events.appendNumbered({
              taskId: task.id,
              prevSeq,
              events: [{ taskId: task.id, seq: prevSeq + 1, ...event }],
              snapshot: applyTaskEvent(snapshot, event.result),
            });
          await append(1, task);
          // Five for requests, the group commit's one.
          await expect.poll(sessions, { timeout: 5_000 }).toBeGreaterThanOrEqual(6);
          await busy;
          await sleep(idleTimeoutMillis * 5);
          // The pool closed the three past its two; the group commit's stays.
          expect(await sessions()).toBe(3);
          await append(2, applyTaskEvent(task, event.result));
          expect((await stores.tasks.get(context().workspaceA, task.id))?.lastSeq).toBe(3);
          await stores.events.close();
        } finally {
          await db.close();
          await admin.close();
        }
      });

      it("spreads concurrent starts over several pool connections and still creates one task", async () => {
        const db = await openInSchema("spread");
        const admin = await openDatabase({ url });
        try {
          const { createPostgresStores } = await import("../src/index.js");
          const stores = createPostgresStores(db);
          const messageId = `msg-${randomUUID()}`;
          const starts = Array.from({ length: 50 }, () =>
            stores.idempotency.createOrGet(messageId, context().newTask(context().workspaceA)),
          );
          const results = await Promise.all(starts);
          const { rows } = await admin.query<{ n: number }>(
            "select count(*)::int as n from pg_stat_activity where application_name = $1",
            [appName("spread")],
          );
          expect(rows[0]?.n).toBeGreaterThan(1);
          expect(results.filter((r) => r.created)).toHaveLength(1);
          expect(new Set(results.map((r) => r.record.task.id)).size).toBe(1);
        } finally {
          await db.close();
          await admin.close();
        }
      });
    },
  },
);
