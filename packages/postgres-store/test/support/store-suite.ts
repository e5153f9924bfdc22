import { randomUUID } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { applyTaskEvent, ERROR_CODES, isA2AError } from "@a2a-partner/a2a-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defineStoreContractCases } from "../../../a2a-core/test/support/store-contract-suite.js";
import { type StoreFixtures, storeFixtures, within } from "../../../a2a-core/test/support/store-fixtures.js";
import type { Database } from "../../src/database.js";
import {
  createPostgresStores,
  defaultMigrationsDir,
  type MigrateResult,
  migrate,
  type PostgresStores,
} from "../../src/index.js";
import { loadMigrations } from "../../src/internal/migration-files.js";

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
 * The stores over one database: the store contract every implementation runs (a2a-core's
 * test/support/store-contract-suite.ts, which the in-memory stores run too), then what only a database
 * has: migrations, the query interface, the group-commit writer's rows, re-reading a lost notification,
 * and values PostgreSQL refuses.
 */
export function defineStoreSuite(name: string, makeTarget: () => Promise<SuiteTarget>, options: SuiteOptions = {}) {
  describe.skipIf(options.skip ?? false)(name, () => {
    let target: SuiteTarget;
    let migrations: MigrateResult[];
    let context: SuiteContext;
    const fixtures = storeFixtures();
    const { newTask, update } = fixtures;

    beforeAll(async () => {
      target = await makeTarget();
      const dbs = [await target.open(), await target.open(), await target.open()];
      // Three "processes" start at once against an empty database.
      migrations = await Promise.all(dbs.map((db) => migrate(db)));
      const [db, other] = dbs as [Database, Database, Database];
      const workspaceA = randomUUID();
      const workspaceB = randomUUID();
      await db.query(
        "insert into workspaces (id, slug, name, visibility) values ($1, $2, 'A', 'private'), ($3, $4, 'B', 'public')",
        [workspaceA, `a-${workspaceA}`, workspaceB, `b-${workspaceB}`],
      );
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
      await context?.stores.events.close();
      await context?.otherStores.events.close();
      await target?.close();
    });

    defineStoreContractCases(() => ({ ...context, fixtures }));

    describe("migrations", () => {
      it("applies every migration exactly once when several processes start together", async () => {
        const files = (await loadMigrations(defaultMigrationsDir())).map((m) => m.name);
        expect(files[0]).toBe("0001_core");
        const applied = migrations.flatMap((result) => result.applied);
        expect(applied.sort()).toEqual([...files].sort());
        const { rows } = await context.db.query<{ name: string }>(
          "select name from schema_migrations order by version",
        );
        expect(rows.map((row) => row.name)).toEqual(files);
      });

      it("is idempotent: a second run applies nothing and keeps the data", async () => {
        const record = await context.stores.tasks.create(newTask(context.workspaceA));
        expect(await migrate(context.db)).toEqual({ applied: [] });
        expect(await context.stores.tasks.get(context.workspaceA, record.task.id)).toEqual(record);
      });

      it("creates the tables the server and the metrics need", async () => {
        const tables = [
          "workspaces",
          "users",
          "memberships",
          "workspace_acl",
          "api_tokens",
          "environments",
          "robots",
          "workflows",
          "workflow_executions",
          "workflow_node_executions",
          "telemetry_events",
          "alerts",
          "tasks",
          "task_events",
        ];
        const { rows } = await context.db.query<{ name: string; found: string | null }>(
          "select t.name, to_regclass(t.name)::text as found from unnest($1::text[]) as t(name)",
          [tables],
        );
        expect(rows.filter((row) => row.found === null).map((row) => row.name)).toEqual([]);
      });

      it("refuses to run when an applied migration was edited", async () => {
        const dir = await copyMigrations();
        try {
          const file = join(dir, "0001_core.sql");
          await writeFile(file, `${await readFile(file, "utf8")}\n-- edited\n`);
          await expect(migrate(context.db, { dir })).rejects.toThrow(/0001_core changed after it was applied/);
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
          await expect(migrate(context.db, { dir })).rejects.toThrow(/no_such_table/);
          const { rows } = await context.db.query<{ found: string | null; recorded: number }>(
            "select to_regclass('zz_half_done')::text as found, (select count(*)::int from schema_migrations where version = 9999) as recorded",
          );
          expect(rows[0]).toEqual({ found: null, recorded: 0 });
        } finally {
          await rm(dir, { recursive: true, force: true });
        }
      });
    });

    describe("the query interface", () => {
      it("returns the same row values on every driver, in UTC", async () => {
        const { rows } = await context.db.query(
          `select 5::bigint as n, '2025-03-04'::date as d, current_setting('TimeZone') as tz,
                  '2025-03-04T05:06:07.089+02:00'::timestamptz as ts, '{"a":[1]}'::jsonb as j,
                  ('2025-03-04T23:30:00Z'::timestamptz)::date as day`,
        );
        const row = rows[0] as Record<string, unknown>;
        expect(row.n).toBe(5);
        expect(row.tz).toBe("UTC");
        expect((row.d as Date).toISOString()).toBe("2025-03-04T00:00:00.000Z");
        expect((row.day as Date).toISOString()).toBe("2025-03-04T00:00:00.000Z");
        expect((row.ts as Date).toISOString()).toBe("2025-03-04T03:06:07.089Z");
        expect(row.j).toEqual({ a: [1] });
      });

      it("rolls a transaction back when its function throws", async () => {
        const slug = `rollback-${randomUUID()}`;
        await expect(
          context.db.transaction(async (tx) => {
            await tx.query("insert into workspaces (slug, name, visibility) values ($1, 'x', 'private')", [slug]);
            throw new Error("boom");
          }),
        ).rejects.toThrow("boom");
        const { rowCount } = await context.db.query("select 1 from workspaces where slug = $1", [slug]);
        expect(rowCount).toBe(0);
      });

      it("takes values only as parameters (a quote in a value is just data)", async () => {
        const slug = `o'brien"; drop table tasks; --${randomUUID()}`;
        await context.db.query("insert into workspaces (slug, name, visibility) values ($1, $1, 'private')", [slug]);
        const { rows } = await context.db.query<{ name: string }>("select name from workspaces where slug = $1", [
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
        const workflow = await context.db.query<{ id: string }>(
          "insert into workflows (workspace_id, name) values ($1, $2) returning id",
          [context.workspaceA, `wf-${randomUUID()}`],
        );
        const workflowId = workflow.rows[0]?.id as string;
        const executionId = randomUUID();
        const entry = update(task, 20);
        const at = new Date();
        await Promise.all([
          writer.insertRows(
            "workflow_executions",
            ["id", "workspace_id", "workflow_id", "task_id", "status", "started_at"],
            [
              {
                id: executionId,
                workspace_id: context.workspaceA,
                workflow_id: workflowId,
                task_id: task.id,
                status: "running",
                started_at: at,
              },
            ],
          ),
          writer.insertRows(
            "telemetry_events",
            ["workspace_id", "event_type", "payload", "occurred_at"],
            [
              { workspace_id: context.workspaceA, event_type: "robot.moved", payload: { x: 1, y: 2 }, occurred_at: at },
              {
                workspace_id: context.workspaceA,
                event_type: "battery.level",
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
        const telemetry = await context.db.query<{ payload: unknown }>(
          "select payload from telemetry_events where workspace_id = $1 and occurred_at = $2 order by event_type",
          [context.workspaceA, at],
        );
        expect(telemetry.rows.map((r) => r.payload)).toEqual([{ percent: 80 }, { x: 1, y: 2 }]);

        // A node execution of an execution that does not exist violates a foreign key: only it fails.
        const [bad, good] = await Promise.allSettled([
          writer.insertRows(
            "workflow_node_executions",
            ["workspace_id", "workflow_execution_id", "workflow_id", "node_name", "status", "started_at"],
            [
              {
                workspace_id: context.workspaceA,
                workflow_execution_id: randomUUID(),
                workflow_id: workflowId,
                node_name: "ghost",
                status: "completed",
                started_at: at,
              },
            ],
          ),
          writer.updateRows(
            "workflow_executions",
            "id",
            ["status", "finished_at"],
            [{ id: executionId, status: "completed", finished_at: at }],
          ),
        ]);
        expect(bad.status).toBe("rejected");
        expect(good.status).toBe("fulfilled");
        const execution = await context.db.query<{ status: string }>(
          "select status from workflow_executions where id = $1",
          [executionId],
        );
        expect(execution.rows[0]?.status).toBe("completed");
        await expect(writer.insertRows("tasks; drop table tasks", ["id"], [{ id: 1 }])).rejects.toThrow(/identifier/);

        // A value with no JSON form fails only the write that holds it.
        const [unserializable, fine] = await Promise.allSettled([
          writer.insertRows(
            "telemetry_events",
            ["workspace_id", "event_type", "payload", "occurred_at"],
            [{ workspace_id: context.workspaceA, event_type: "bad", payload: { n: 1n }, occurred_at: at }],
          ),
          writer.updateRows("workflow_executions", "id", ["status"], [{ id: executionId, status: "failed" }]),
        ]);
        expect(unserializable.status).toBe("rejected");
        expect(fine.status).toBe("fulfilled");
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
    });

    describe("request data the database refuses", () => {
      // A value PostgreSQL refuses (SQLSTATE class 22) came from the request: the store says -32602 (the
      // handler answers it as is), never a bare driver error that the handler would answer as an outage.
      const withLoneSurrogate = (workspaceId: string) => {
        const input = newTask(workspaceId);
        input.task.history[0] = { role: "user", parts: [{ kind: "text", text: "restock \ud800 aisle 4" }] };
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
    });

    options.extra?.(() => context);
  });
}

async function copyMigrations(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "a2a-migrations-"));
  await cp(defaultMigrationsDir(), dir, { recursive: true });
  return dir;
}
