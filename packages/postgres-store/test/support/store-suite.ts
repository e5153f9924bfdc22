import { randomUUID } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import {
  applyTaskEvent,
  ERROR_CODES,
  isA2AError,
  type NewTaskEvent,
  type Task,
  type TaskRecord,
} from "@a2a-partner/a2a-core";
import {
  defineStoreContractTests,
  must,
  type StoreFixtures,
  storeFixtures,
  within,
} from "@a2a-partner/a2a-core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../src/database.js";
import {
  createPostgresStores,
  defaultMigrationsDir,
  type MigrateResult,
  type MigrationSource,
  migrate,
  type PostgresStores,
  storeMigrations,
} from "../../src/index.js";
import { loadMigrations } from "../../src/migrations/migration-files.js";
import { listTasksPage } from "../../src/stores/list-tasks-query.js";
import { defineCarriedEventsTests } from "./carried-events.js";
import { STORE_MIGRATION_FILES } from "./store-migration-files.js";

/** The store's migrations, then an embedder's own (tables for the writer and query tests). */
const SOURCES: readonly MigrationSource[] = [
  storeMigrations(),
  { name: "store-suite", dir: fileURLToPath(new URL("./fixture-migrations/", import.meta.url)) },
];

/**
 * One database to test against. `open()` returns a new Database instance (its own connections and
 * its own listener) over the same underlying, initially empty, database.
 */
export interface SuiteTarget {
  open(): Promise<Database>;
  close(): Promise<void>;
}

export interface SuiteOptions {
  skip?: boolean;
  /**
   * The time zone of the target's sessions: UTC when the driver sets it, the server's (or a pooler's)
   * otherwise, where every statement of the store must name UTC itself. Default "UTC".
   */
  sessionTimeZone?: string;
  /** Extra tests that need the target's own handles (e.g. PostgreSQL connection counts). */
  extra?: (context: () => SuiteContext) => void;
}

export interface SuiteContext extends StoreFixtures {
  db: Database;
  other: Database;
  stores: PostgresStores;
  otherStores: PostgresStores;
  workspaceA: string;
  workspaceB: string;
}

/**
 * The plans of the statements `run` sends through the Database it is given: each one is EXPLAINed (not
 * run) inside one transaction, after `settings` (e.g. `set local enable_seqscan = off`).
 */
async function explainStatements(
  db: Database,
  settings: string,
  run: (explaining: Database) => Promise<unknown>,
): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.exec(settings);
    const explained: string[] = [];
    const explaining = {
      ...db,
      query: async (sql: string, params?: readonly unknown[]) => {
        const { rows } = await tx.query<{ "QUERY PLAN": string }>(`explain ${sql}`, params);
        explained.push(rows.map((row) => row["QUERY PLAN"]).join("\n"));
        return { rows: [], rowCount: 0 };
      },
    } as Database;
    await run(explaining);
    return explained;
  });
}

/**
 * The stores over one database: the store contract every implementation runs (a2a-core's
 * `@a2a-partner/a2a-core/testing`, which the in-memory stores run too), then what only a database
 * has: migrations, the query interface, the group-commit writer's rows, re-reading a lost notification,
 * and values PostgreSQL refuses.
 */
export function defineStoreSuite(name: string, makeTarget: () => Promise<SuiteTarget>, options: SuiteOptions = {}) {
  describe.skipIf(options.skip ?? false)(name, () => {
    let target: SuiteTarget;
    let migrations: MigrateResult[];
    let context: SuiteContext;
    const fixtures = storeFixtures();
    const { newTask, update, finished } = fixtures;

    beforeAll(async () => {
      target = await makeTarget();
      const dbs = [await target.open(), await target.open(), await target.open()];
      // Three "processes" start at once against an empty database.
      migrations = await Promise.all(dbs.map((db) => migrate(db, { sources: SOURCES })));
      const [db, other] = dbs as [Database, Database, Database];
      // The store knows no workspaces table: a workspace is just the id its rows are scoped by.
      const workspaceA = randomUUID();
      const workspaceB = randomUUID();
      context = {
        ...fixtures,
        db,
        other,
        // A long re-read interval: a waiter that wakes in time was woken by a notification.
        stores: createPostgresStores(db, { recheckIntervalMs: 60_000 }),
        otherStores: createPostgresStores(other, { recheckIntervalMs: 60_000 }),
        workspaceA,
        workspaceB,
      };
    });

    afterAll(async () => {
      for (const stores of [context?.stores, context?.otherStores]) {
        await stores?.push.deliveries.close();
        await stores?.events.close();
      }
      await target?.close();
    });

    defineStoreContractTests(() => ({ ...context, fixtures }));
    defineCarriedEventsTests(() => context);

    describe("migrations", () => {
      it("applies every migration of every source exactly once when several processes start together", async () => {
        const files: string[] = [];
        for (const source of SOURCES) {
          for (const m of await loadMigrations(source.dir)) files.push(`${source.name}/${m.name}`);
        }
        expect(files.slice(0, STORE_MIGRATION_FILES.length + 1)).toEqual([
          ...STORE_MIGRATION_FILES,
          "store-suite/0001_fixture_tables",
        ]);
        const applied = migrations.flatMap((result) => result.applied);
        expect(applied.sort()).toEqual([...files].sort());
        expect(migrations.flatMap((result) => result.adopted)).toEqual([]);
        const { rows } = await context.db.query<{ file: string }>(
          "select source || '/' || name as file from schema_migrations order by source, version",
        );
        expect(rows.map((row) => row.file)).toEqual(files);
      });

      it("is idempotent: a second run applies nothing and keeps the data", async () => {
        const record = await context.stores.tasks.create(newTask(context.workspaceA));
        expect(await migrate(context.db, { sources: SOURCES })).toEqual({ applied: [], adopted: [] });
        expect(await migrate(context.db)).toEqual({ applied: [], adopted: [] });
        expect(await context.stores.tasks.get(context.workspaceA, record.task.id)).toEqual(record);
      });

      it("creates the store's tables and nothing of the reference server or the metrics", async () => {
        const tables = [
          "tasks",
          "task_events",
          "push_configs",
          "push_deliveries",
          "workspaces",
          "api_tokens",
          "workflows",
          "telemetry_events",
        ];
        const { rows } = await context.db.query<{ name: string }>(
          "select t.name from unnest($1::text[]) as t(name) where to_regclass(t.name) is not null",
          [tables],
        );
        expect(rows.map((row) => row.name)).toEqual(["tasks", "task_events", "push_configs", "push_deliveries"]);
      });

      it("refuses a source named twice", async () => {
        await expect(migrate(context.db, { sources: [storeMigrations(), storeMigrations()] })).rejects.toThrow(
          /listed twice/,
        );
      });

      it("refuses to run when an applied migration was edited", async () => {
        const dir = await copyMigrations();
        try {
          const file = join(dir, "0001_tasks.sql");
          await writeFile(file, `${await readFile(file, "utf8")}\n-- edited\n`);
          await expect(migrate(context.db, { sources: [{ name: "a2a-store", dir }] })).rejects.toThrow(
            /a2a-store\/0001_tasks changed after it was applied/,
          );
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });

      it("rolls a failing migration back completely and records nothing", async () => {
        const dir = await copyMigrations();
        try {
          await writeFile(
            join(dir, "9999_broken.sql"),
            "create table zz_half_done (id int);\ninsert into no_such_table values (1);\n",
          );
          await expect(migrate(context.db, { sources: [{ name: "a2a-store", dir }] })).rejects.toThrow(/no_such_table/);
          const { rows } = await context.db.query<{ found: string | null; recorded: number }>(
            "select to_regclass('zz_half_done')::text as found, (select count(*)::int from schema_migrations where version = 9999) as recorded",
          );
          expect(rows[0]).toEqual({ found: null, recorded: 0 });
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    });

    describe("the tasks table's indexes", () => {
      // What a running task's status updates and lease renewals change: while no index covers any of these,
      // its row updates can stay heap-only instead of adding an entry to every index of `tasks`
      // (migrations 0003 and 0004).
      const CHANGED_BY_STATUS_UPDATES = [
        "snapshot",
        "state",
        "last_seq",
        "status_at",
        "updated_at",
        "lease_expires_at",
      ];

      it("cover no column a running task's status updates or lease renewals change (keys, included columns or predicates)", async () => {
        const { rows } = await context.db.query<{ index: string; column: string }>(
          `select i.indexrelid::regclass::text as index, a.attname as column
             from pg_index i
             join pg_attribute a on a.attrelid = i.indrelid and a.attnum > 0
            where i.indrelid = 'tasks'::regclass
              and (a.attnum = any(i.indkey::int2[])
                   or pg_get_expr(i.indpred, i.indrelid) ~ ('\\m' || a.attname || '\\M')
                   or pg_get_expr(i.indexprs, i.indrelid) ~ ('\\m' || a.attname || '\\M'))`,
        );
        expect(rows.length).toBeGreaterThan(0);
        expect(rows.filter((row) => CHANGED_BY_STATUS_UPDATES.includes(row.column))).toEqual([]);
      });

      it("serve a ListTasks page of ended tasks in their order, past the cursor, without sorting them", async () => {
        const { db, stores, workspaceA } = context;
        const contextId = randomUUID();
        for (let i = 0; i < 3; i++) {
          const { task } = await stores.tasks.create(newTask(workspaceA, { contextId }));
          await stores.events.append(task.id, fixtures.finished(task));
        }
        const first = await listTasksPage(db, workspaceA, { pageSize: 1 });
        // Whether the index can give the order at all, whatever the planner would pick for a table this small.
        const plans = await explainStatements(
          db,
          // Sorts off too, incremental ones included: once the autovacuum stand-in has analyzed a table this
          // small, sorting it (or the rows of another index) is the cheaper plan, which says nothing about
          // this index (with no index that gives the order, the plan still sorts, and this fails).
          "set local enable_seqscan = off; set local enable_bitmapscan = off; set local enable_sort = off; set local enable_incremental_sort = off",
          (explaining) =>
            listTasksPage(explaining, workspaceA, { pageSize: 10, ...(first.next ? { after: first.next } : {}) }),
        );
        const page = plans.find((plan) => plan.includes("Merge Append") || plan.includes("Limit"));
        expect(page).toMatch(/Index (Only )?Scan Backward using tasks_ended_list_idx/);
        expect(page).toMatch(/Index Cond: .*final_status_at, id\) < /);
      });

      it("let the orphan sweep read the running tasks only, not every task ever stored", async () => {
        // Whether an index can serve it at all, whatever the planner would pick for a table this small.
        const plans = await explainStatements(context.db, "set local enable_seqscan = off", (explaining) =>
          createPostgresStores(explaining).tasks.listOrphaned(10),
        );
        expect(plans).toHaveLength(1);
        // Through the partial index of running tasks, never a scan of the whole table (with sequential
        // scans off, a table without a usable partial index is read through its primary key instead).
        expect(plans[0]).toMatch(/tasks_running_idx/);
        expect(plans[0]).not.toMatch(/Seq Scan on tasks|using tasks_pkey/);
      });
    });

    describe("status_at, ListTasks' order", () => {
      /** Tasks whose status_at or final_status_at differ from what the table's rule derives from the snapshot. */
      const DERIVED_DIFFERENTLY = `select id::text from tasks where id = any($1::text[]::uuid[])
          and (status_at is distinct from tasks_status_at(snapshot)
               or final_status_at is distinct from case when terminal then tasks_status_at(snapshot) end)`;

      /** A status event of `task` stamped `timestamp` (which may be any text a snapshot can hold). */
      const stamped = (event: NewTaskEvent, timestamp: string): NewTaskEvent => {
        if (!("statusUpdate" in event.result)) throw new Error("not a status update");
        const update = event.result.statusUpdate;
        return { ...event, result: { statusUpdate: { ...update, status: { ...update.status, timestamp } } } };
      };

      /** Moves `task` by `event` through the group commit (seq after `prevSeq`); the new snapshot. */
      async function throughGroupCommit(task: Task, prevSeq: number, event: NewTaskEvent): Promise<Task> {
        const snapshot = applyTaskEvent(task, event.result);
        const events = [{ taskId: task.id, seq: prevSeq + 1, ...event }];
        expect(await context.stores.events.appendNumbered({ taskId: task.id, prevSeq, events, snapshot })).toBe(true);
        return snapshot;
      }

      it("is written by every write path of the store itself, as the table's rule derives it", async () => {
        const { db, stores, workspaceA } = context;
        // With the table's triggers off, any write that left the columns to them would fail or leave them stale.
        const triggers = ["tasks_status_at_on_insert", "tasks_status_at_on_update"];
        for (const trigger of triggers) await db.query(`alter table tasks disable trigger ${trigger}`);
        try {
          const ids: string[] = [];
          // Fractions PostgreSQL rounds to microseconds, and offsets it normalises, on every path.
          for (const path of ["group commit", "locked append"]) {
            const input = newTask(workspaceA);
            input.task.status.timestamp = "2025-05-05T10:00:00.123456789+05:30";
            const { task } = await stores.tasks.create(input);
            ids.push(task.id);
            const progress = stamped(update(task, 50), "2025-06-01T12:00:00.654321+02:00");
            const ended = stamped(finished(applyTaskEvent(task, progress.result)), "2025-06-01T12:00:01.1234567Z");
            if (path === "group commit") {
              await throughGroupCommit(await throughGroupCommit(task, 1, progress), 2, ended);
            } else {
              await stores.events.append(task.id, progress);
              expect((await db.query(DERIVED_DIFFERENTLY, [[task.id]])).rows, path).toEqual([]);
              await stores.events.append(task.id, ended);
            }
            expect((await db.query(DERIVED_DIFFERENTLY, [[task.id]])).rows, path).toEqual([]);
          }
          // A task that starts ended: its final_status_at is written with it.
          const input = newTask(workspaceA);
          input.task.status = { state: "TASK_STATE_COMPLETED", timestamp: "2025-05-05T10:00:00.5-03:00" };
          const { task: endedAtStart } = await stores.tasks.create(input);
          ids.push(endedAtStart.id);
          expect((await db.query(DERIVED_DIFFERENTLY, [ids])).rows).toEqual([]);
          const { rows } = await db.query<{ final: Date | null }>(
            "select final_status_at as final from tasks where id = any($1::text[]::uuid[]) order by final_status_at",
            [ids],
          );
          expect(rows.map((row) => row.final?.toISOString())).toEqual([
            "2025-05-05T13:00:00.500Z",
            "2025-06-01T12:00:01.123Z",
            "2025-06-01T12:00:01.123Z",
          ]);
        } finally {
          for (const trigger of triggers) await db.query(`alter table tasks enable trigger ${trigger}`);
        }
      });

      it("reads as the time of the write when the status timestamp is not in the rule's format, as before", async () => {
        const { db, stores, workspaceA } = context;
        const input = newTask(workspaceA);
        input.task.status.timestamp = "soon";
        const { task } = await stores.tasks.create(input);
        const written = async () =>
          (
            await db.query<{ at_start: boolean; at_update: boolean }>(
              `select status_at = lease_expires_at - interval '1 hour' as at_start, status_at = updated_at as at_update
                 from tasks where id = $1`,
              [task.id],
            )
          ).rows[0];
        expect((await written())?.at_start).toBe(true);
        const moved = await throughGroupCommit(task, 1, stamped(update(task, 10), "later"));
        expect((await written())?.at_update).toBe(true);
        await stores.events.append(task.id, stamped(update(moved, 20), "later still"));
        expect((await written())?.at_update).toBe(true);
      });

      it("is still derived by the table for a writer that leaves it alone (an older instance, a fix in SQL)", async () => {
        const { db, stores, workspaceA } = context;
        const { task } = await stores.tasks.create(newTask(workspaceA));
        const inserted = randomUUID();
        await db.query(
          `insert into tasks (id, workspace_id, context_id, snapshot, state, lease_owner, lease_expires_at)
           select $1::text::uuid, workspace_id, context_id, jsonb_set(snapshot, '{id}', to_jsonb($1::text)), state,
                  lease_owner, lease_expires_at
             from tasks where id = $2`,
          [inserted, task.id],
        );
        await db.query(
          `update tasks set snapshot = jsonb_set(snapshot, '{status}', '{"state": "completed", "timestamp": "2025-07-01T00:00:00Z"}'),
                  state = 'completed', terminal = true
            where id = $1`,
          [task.id],
        );
        const { rows } = await db.query<{ id: string }>(DERIVED_DIFFERENTLY, [[task.id, inserted]]);
        expect(rows).toEqual([]);
        const moved = await db.query<{ status_at: Date }>("select status_at from tasks where id = $1", [task.id]);
        expect(moved.rows[0]?.status_at.toISOString()).toBe("2025-07-01T00:00:00.000Z");
        // Re-stamped by hand without its final_status_at: the table keeps the pair consistent.
        await db.query("update tasks set status_at = status_at + interval '1 second' where id = $1", [task.id]);
        expect((await db.query(DERIVED_DIFFERENTLY, [[task.id]])).rows).toEqual([]);
      });
    });

    describe("the query interface", () => {
      it("returns the same row values on every driver, in UTC", async () => {
        const zone = options.sessionTimeZone ?? "UTC";
        // A session in another zone (behind a pooler) gets UTC days only where the SQL names UTC.
        const day =
          zone === "UTC"
            ? "('2025-03-04T23:30:00Z'::timestamptz)::date"
            : "('2025-03-04T23:30:00Z'::timestamptz at time zone 'UTC')::date";
        const { rows } = await context.db.query(
          `select 5::bigint as n, '2025-03-04'::date as d, current_setting('TimeZone') as tz,
                  '2025-03-04T05:06:07.089+02:00'::timestamptz as ts, '{"a":[1]}'::jsonb as j,
                  ${day} as day`,
        );
        const row = rows[0] as Record<string, unknown>;
        expect(row.n).toBe(5);
        expect(row.tz).toBe(zone);
        expect((row.d as Date).toISOString()).toBe("2025-03-04T00:00:00.000Z");
        expect((row.day as Date).toISOString()).toBe("2025-03-04T00:00:00.000Z");
        expect((row.ts as Date).toISOString()).toBe("2025-03-04T03:06:07.089Z");
        expect(row.j).toEqual({ a: [1] });
      });

      it("rolls a transaction back when its function throws", async () => {
        const slug = `rollback-${randomUUID()}`;
        await expect(
          context.db.transaction(async (tx) => {
            await tx.query("insert into fixture_notes (slug, name) values ($1, 'x')", [slug]);
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        const { rowCount } = await context.db.query("select 1 from fixture_notes where slug = $1", [slug]);
        expect(rowCount).toBe(0);
      });

      it("takes values only as parameters (a quote in a value is just data)", async () => {
        const slug = `o'brien"; drop table tasks; --${randomUUID()}`;
        await context.db.query("insert into fixture_notes (slug, name) values ($1, $1)", [slug]);
        const { rows } = await context.db.query<{ name: string }>("select name from fixture_notes where slug = $1", [
          slug,
        ]);
        expect(rows).toEqual([{ name: slug }]);
        expect((await context.db.query("select to_regclass('tasks')::text as t")).rows[0]).toEqual({ t: "tasks" });
      });
    });

    describe("the group-commit writer and the watchers' re-read", () => {
      it("commits rows of several tables with events together; a bad row fails alone, its neighbours land", async () => {
        const { writer } = context.stores.events;
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const executionId = randomUUID();
        const entry = update(task, 20);
        const at = new Date();
        await Promise.all([
          writer.insertRows(
            "fixture_runs",
            ["id", "workspace_id", "task_id", "status", "started_at"],
            [
              {
                id: executionId,
                workspace_id: context.workspaceA,
                task_id: task.id,
                status: "running",
                started_at: at,
              },
            ],
          ),
          writer.insertRows(
            "fixture_readings",
            ["workspace_id", "kind", "payload", "occurred_at"],
            [
              { workspace_id: context.workspaceA, kind: "robot.moved", payload: { x: 1, y: 2 }, occurred_at: at },
              {
                workspace_id: context.workspaceA,
                kind: "battery.level",
                payload: { percent: 80 },
                occurred_at: at,
              },
            ],
          ),
          context.stores.events.appendNumbered({
            taskId: task.id,
            prevSeq: 1,
            events: [{ taskId: task.id, seq: 2, ...entry }],
            snapshot: applyTaskEvent(task, entry.result),
          }),
        ]);
        const readings = await context.db.query<{ payload: unknown }>(
          "select payload from fixture_readings where workspace_id = $1 and occurred_at = $2 order by kind",
          [context.workspaceA, at],
        );
        expect(readings.rows.map((r) => r.payload)).toEqual([{ percent: 80 }, { x: 1, y: 2 }]);

        // A step of a run that does not exist violates a foreign key: only it fails.
        const [bad, good] = await Promise.allSettled([
          writer.insertRows(
            "fixture_run_steps",
            ["run_id", "step", "status"],
            [{ run_id: randomUUID(), step: "ghost", status: "completed" }],
          ),
          writer.updateRows(
            "fixture_runs",
            "id",
            ["status", "finished_at"],
            [{ id: executionId, status: "completed", finished_at: at }],
          ),
        ]);
        expect(bad.status).toBe("rejected");
        expect(good.status).toBe("fulfilled");
        const execution = await context.db.query<{ status: string }>("select status from fixture_runs where id = $1", [
          executionId,
        ]);
        expect(execution.rows[0]?.status).toBe("completed");
        await expect(writer.insertRows("tasks; drop table tasks", ["id"], [{ id: 1 }])).rejects.toThrow(/identifier/);

        // A value with no JSON form fails only the write that holds it.
        const [unserializable, fine] = await Promise.allSettled([
          writer.insertRows(
            "fixture_readings",
            ["workspace_id", "kind", "payload", "occurred_at"],
            [{ workspace_id: context.workspaceA, kind: "bad", payload: { n: 1n }, occurred_at: at }],
          ),
          writer.updateRows("fixture_runs", "id", ["status"], [{ id: executionId, status: "failed" }]),
        ]);
        expect(unserializable.status).toBe("rejected");
        expect(fine.status).toBe("fulfilled");
      });

      it("stores an append in the same commit as the rows it depends on, and refuses it when one is refused", async () => {
        const { writer } = context.stores.events;
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const numbered = (seq: number, prev: Task) => {
          const entry = update(prev, seq * 10);
          return {
            taskId: task.id,
            prevSeq: seq - 1,
            events: [{ taskId: task.id, seq, ...entry }],
            snapshot: applyTaskEvent(prev, entry.result),
          };
        };
        const kind = `reading-${randomUUID()}`;
        const reading = writer.insertRows(
          "fixture_readings",
          ["workspace_id", "kind", "payload", "occurred_at"],
          [{ workspace_id: context.workspaceA, kind, payload: { x: 1 }, occurred_at: new Date() }],
        );
        const second = numbered(2, task);
        await expect(context.stores.events.appendNumbered(second, [reading])).resolves.toBe(true);
        // Not a commit after the reading's: the one it rode in (one transaction, one xmin).
        const { rows } = await context.db.query<{ reading: string; event: string }>(
          `select (select xmin::text from fixture_readings where kind = $1) as reading,
                  (select xmin::text from task_events where task_id = $2 and seq = 2) as event`,
          [kind, task.id],
        );
        expect(rows[0]?.event).toBe(rows[0]?.reading);

        // One in the commit under way: the append goes once that commit is in, with nothing else asked for.
        const earlier = writer.insertRows(
          "fixture_readings",
          ["workspace_id", "kind", "payload", "occurred_at"],
          [{ workspace_id: context.workspaceA, kind, payload: { x: 2 }, occurred_at: new Date() }],
        );
        await new Promise((resolve) => setImmediate(resolve));
        const afterIt = numbered(3, second.snapshot);
        await expect(within(5_000, context.stores.events.appendNumbered(afterIt, [earlier]))).resolves.toBe(true);

        // A step of a run that does not exist violates a foreign key: the append that depends on it is refused.
        const ghost = writer.insertRows(
          "fixture_run_steps",
          ["run_id", "step", "status"],
          [{ run_id: randomUUID(), step: "ghost", status: "completed" }],
        );
        const fourth = context.stores.events.appendNumbered(numbered(4, afterIt.snapshot), [ghost]);
        await expect(ghost).rejects.toThrow();
        await expect(fourth).rejects.toMatchObject({ name: "DependencyFailedError" });
        expect((await context.stores.tasks.get(context.workspaceA, task.id))?.lastSeq).toBe(3);
        expect((await context.stores.events.readAfter(task.id, 3)).length).toBe(0);
      });

      it("commits rows in the order they were asked for: a row handed over after the one it refers to never lands first", async () => {
        // The order the reference server's fleet relies on (node executions handed over, unawaited, right
        // after their workflow execution), where a batch is cut: the runs do not fit in the first commit
        // beside the readings, so they wait for the next one, and the step that refers to them must wait
        // with them even though it would fit.
        const { writer } = context.stores.events;
        const at = new Date();
        const filler = Array.from({ length: 4_995 }, (_, i) => ({
          workspace_id: context.workspaceA,
          kind: `filler.${i}`,
          payload: {},
          occurred_at: at,
        }));
        const runs = Array.from({ length: 10 }, () => ({
          id: randomUUID(),
          workspace_id: context.workspaceA,
          status: "running",
          started_at: at,
        }));
        const firstRun = runs[0]?.id;
        const results = await Promise.allSettled([
          writer.insertRows("fixture_readings", ["workspace_id", "kind", "payload", "occurred_at"], filler),
          writer.insertRows("fixture_runs", ["id", "workspace_id", "status", "started_at"], runs),
          writer.insertRows(
            "fixture_run_steps",
            ["run_id", "step", "status"],
            [{ run_id: firstRun, step: "pick", status: "completed" }],
          ),
        ]);
        expect(results.map((r) => r.status)).toEqual(["fulfilled", "fulfilled", "fulfilled"]);
        // The batch was cut where this test means it to be (each commit is its own transaction): the runs
        // and their step in one, after the readings'.
        const transactionOf = async (sql: string, params: unknown[]) =>
          (await context.db.query<{ xid: string }>(sql, params)).rows.map((row) => row.xid);
        const [readings] = await transactionOf(
          "select distinct xmin::text as xid from fixture_readings where workspace_id = $1 and occurred_at = $2",
          [context.workspaceA, at],
        );
        const [ofRuns, ...more] = await transactionOf(
          "select distinct xmin::text as xid from fixture_runs where id = any($1::uuid[])",
          [runs.map((run) => run.id)],
        );
        const [ofStep] = await transactionOf("select xmin::text as xid from fixture_run_steps where run_id = $1", [
          firstRun,
        ]);
        expect(more).toEqual([]);
        expect(ofRuns).not.toBe(readings);
        expect(ofStep).toBe(ofRuns);
      });

      it("re-reads on its own, so a lost notification cannot leave a watcher uninformed", async () => {
        const events = createPostgresStores(context.db, { recheckIntervalMs: 50 }).events;
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const told = new Promise<number | undefined>((resolve) => {
          const stop = events.watch(task.id, (seq) => {
            if (seq === 2) {
              stop();
              resolve(seq);
            }
          });
        });
        await sleep(100);
        // A change that sends no notification at all.
        await context.db.query("update tasks set last_seq = 2 where id = $1", [task.id]);
        await expect(within(3_000, told)).resolves.toBe(2);
        await events.close();
      });

      it("re-reads only what changed: a watcher hears a task's newest once, and that a deleted task is gone", async () => {
        const events = createPostgresStores(context.db, { recheckIntervalMs: 50 }).events;
        const { task: steady } = await context.stores.tasks.create(newTask(context.workspaceA));
        const { task: deleted } = await context.stores.tasks.create(newTask(context.workspaceA));
        const heard = { steady: [] as Array<number | undefined>, deleted: [] as Array<number | undefined> };
        const stops = [
          events.watch(steady.id, (seq) => heard.steady.push(seq)),
          events.watch(deleted.id.toUpperCase(), (seq) => heard.deleted.push(seq)),
        ];
        await sleep(400); // several re-checks
        expect(heard.steady).toEqual([1]);
        expect(heard.deleted).toEqual([1]);
        await context.db.query("delete from tasks where id = $1", [deleted.id]);
        await context.db.query("update tasks set last_seq = 3 where id = $1", [steady.id]);
        await expect.poll(() => heard.deleted.at(-1), { timeout: 3_000 }).toBeUndefined();
        await expect.poll(() => heard.steady, { timeout: 3_000 }).toEqual([1, 3]);
        await sleep(200);
        expect(heard.steady).toEqual([1, 3]);
        for (const stop of stops) stop();
        await events.close();
      });
    });

    describe("lease renewals", () => {
      it("renew each task once, in any spelling of its id, and answer in the caller's order and spelling", async () => {
        const { stores, workspaceA } = context;
        const lease = { owner: "runner-spelling", durationMs: 60_000 };
        const [a, b, ended] = await Promise.all(
          [0, 1, 2].map(() => stores.tasks.create(newTask(workspaceA, { lease }))),
        );
        if (!a || !b || !ended) throw new Error("three tasks");
        await stores.events.append(ended.task.id, fixtures.finished(ended.task));
        const asked = [b.task.id.toUpperCase(), a.task.id, ended.task.id, b.task.id, "junk", randomUUID()];
        expect(await stores.tasks.renewLeases(lease.owner, asked, 3_600_000)).toEqual([
          b.task.id.toUpperCase(),
          a.task.id,
        ]);
        const expiresAt = (await stores.tasks.get(workspaceA, b.task.id))?.lease?.expiresAt;
        expect(Date.parse(expiresAt ?? "")).toBeGreaterThan(Date.now() + 3_000_000);
      });
    });

    describe("request data the database refuses", () => {
      // A value PostgreSQL refuses (SQLSTATE class 22) came from the request: the store says -32602 (the
      // handler answers it as is), never a bare driver error that the handler would answer as an outage.
      const withLoneSurrogate = (workspaceId: string) => {
        const input = newTask(workspaceId);
        input.task.history[0] = { role: "ROLE_USER", parts: [{ text: "restock \ud800 aisle 4" }] };
        return input;
      };
      const expectInvalidParams = (error: unknown) => {
        expect(isA2AError(error) && error.code).toBe(ERROR_CODES.InvalidParams);
        expect((error as Error).message).not.toMatch(/json|syntax|unicode/i);
        expect(((error as Error).cause as { code?: string }).code).toMatch(/^22/);
      };

      it("answers a task it cannot store with InvalidParamsError, and stores nothing", async () => {
        const input = withLoneSurrogate(context.workspaceA);
        expectInvalidParams(await context.stores.tasks.create(input).catch((error: unknown) => error));
        expect(await context.stores.tasks.get(context.workspaceA, input.task.id)).toBeUndefined();
      });

      it("does the same for an idempotent start, which stays startable with valid data", async () => {
        const messageId = `msg-${randomUUID()}`;
        const refused = await context.stores.idempotency
          .createOrGet(messageId, withLoneSurrogate(context.workspaceA))
          .catch((error: unknown) => error);
        expectInvalidParams(refused);
        const started = await context.stores.idempotency.createOrGet(messageId, newTask(context.workspaceA));
        expect(started.created).toBe(true);
      });

      it("creates one task for starts of one key asked for beside an append, the same start twice among them", async () => {
        const { stores, workspaceA } = context;
        const { task } = await stores.tasks.create(newTask(workspaceA));
        const progress = update(task, 40);
        const messageId = `msg-${randomUUID()}`;
        const inputs = Array.from({ length: 5 }, () => newTask(workspaceA));
        inputs.push(must(inputs[0])); // the same start asked twice (one task id, one key)
        const [appended, ...results] = await Promise.all([
          stores.events.appendNumbered({
            taskId: task.id,
            prevSeq: 1,
            events: [{ taskId: task.id, seq: 2, ...progress }],
            snapshot: applyTaskEvent(task, progress.result),
          }),
          ...inputs.map((input) => stores.idempotency.createOrGet(messageId, input)),
        ]);
        expect(appended).toBe(true);
        const started = results as { record: TaskRecord; created: boolean }[];
        expect(started.filter((result) => result.created)).toHaveLength(1);
        expect(new Set(started.map((result) => result.record.task.id)).size).toBe(1);
        const taskId = must(started[0]).record.task.id;
        expect(await stores.events.readAfter(taskId, 0)).toHaveLength(1);
        expect((await stores.idempotency.get(workspaceA, messageId))?.task.id).toBe(taskId);
      });

      it("refuses only that start among starts and appends asked for at once (one commit on PGlite)", async () => {
        const { stores, workspaceA } = context;
        const { task } = await stores.tasks.create(newTask(workspaceA));
        const progress = update(task, 40);
        const good = [newTask(workspaceA), newTask(workspaceA)];
        const bad = withLoneSurrogate(workspaceA);
        const [appended, first, refused, second] = await Promise.allSettled([
          stores.events.appendNumbered({
            taskId: task.id,
            prevSeq: 1,
            events: [{ taskId: task.id, seq: 2, ...progress }],
            snapshot: applyTaskEvent(task, progress.result),
          }),
          stores.idempotency.createOrGet(`msg-${randomUUID()}`, must(good[0])),
          stores.idempotency.createOrGet(`msg-${randomUUID()}`, bad),
          stores.idempotency.createOrGet(undefined, must(good[1])),
        ]);
        expect(appended).toEqual({ status: "fulfilled", value: true });
        expect(refused.status).toBe("rejected");
        expectInvalidParams((refused as PromiseRejectedResult).reason);
        for (const [i, result] of [first, second].entries()) {
          expect(result.status).toBe("fulfilled");
          const { record, created } = (result as PromiseFulfilledResult<{ record: TaskRecord; created: boolean }>)
            .value;
          expect(created).toBe(true);
          expect(record.task).toEqual(good[i]?.task);
          expect(await stores.tasks.get(workspaceA, record.task.id)).toEqual(record);
          expect(await stores.events.readAfter(record.task.id, 0)).toHaveLength(1);
        }
        expect(await stores.tasks.get(workspaceA, bad.task.id)).toBeUndefined();
      });
    });

    options.extra?.(() => context);
  });
}

async function copyMigrations(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "a2a-migrations-"));
  await cp(defaultMigrationsDir(), dir, { recursive: true });
  return dir;
}
