import { randomUUID } from "node:crypto";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  applyTaskEvent,
  ERROR_CODES,
  isA2AError,
  type NewTask,
  type NewTaskEvent,
  type StoredTaskEvent,
  type Task,
} from "@a2a-partner/a2a-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

export interface SuiteContext {
  db: Database;
  other: Database;
  stores: PostgresStores;
  otherStores: PostgresStores;
  workspaceA: string;
  workspaceB: string;
  newTask: (workspaceId: string, overrides?: Partial<Pick<NewTask, "lease" | "createdAt">>) => NewTask;
  update: (task: Task, percent: number) => NewTaskEvent;
  finished: (task: Task, state?: "completed" | "canceled" | "failed") => NewTaskEvent;
}

const FAR_FUTURE = "2100-01-01T00:00:00.000Z";
const HOUR_MS = 3_600_000;

export function defineStoreSuite(name: string, makeTarget: () => Promise<SuiteTarget>, options: SuiteOptions = {}) {
  describe.skipIf(options.skip ?? false)(name, () => {
    let target: SuiteTarget;
    let migrations: MigrateResult[];
    let context: SuiteContext;
    let tick = 0;
    // Strictly increasing timestamps, so "oldest first" orders are predictable.
    const clock = () => new Date(Date.UTC(2025, 0, 1) + tick++ * 1000).toISOString();

    const newTask: SuiteContext["newTask"] = (workspaceId, overrides = {}) => {
      const id = randomUUID();
      const createdAt = overrides.createdAt ?? clock();
      return {
        workspaceId,
        task: {
          kind: "task",
          id,
          contextId: randomUUID(),
          status: { state: "working", timestamp: createdAt },
          history: [
            {
              kind: "message",
              role: "user",
              messageId: randomUUID(),
              parts: [{ kind: "text", text: "restock aisle 4" }],
            },
          ],
          artifacts: [],
          metadata: { storeId: "store-001" },
        },
        lease: overrides.lease ?? { owner: "runner-a", durationMs: HOUR_MS },
        createdAt,
      };
    };
    const update: SuiteContext["update"] = (task, percent) => {
      const at = clock();
      return {
        event: "update",
        createdAt: at,
        result: {
          kind: "status-update",
          taskId: task.id,
          contextId: task.contextId,
          status: { state: "working", timestamp: at },
          final: false,
          metadata: { robot: "robot-1", percent },
        },
      };
    };
    const finished: SuiteContext["finished"] = (task, state = "completed") => {
      const at = clock();
      return {
        event: "finished",
        createdAt: at,
        result: {
          kind: "status-update",
          taskId: task.id,
          contextId: task.contextId,
          status: {
            state,
            timestamp: at,
            message: {
              kind: "message",
              role: "agent",
              messageId: randomUUID(),
              parts: [{ kind: "text", text: state }],
            },
          },
          final: true,
        },
      };
    };

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
        db,
        other,
        // A long re-read interval: a waiter that wakes in time was woken by a notification.
        stores: createPostgresStores(db, { recheckIntervalMs: 60_000 }),
        otherStores: createPostgresStores(other, { recheckIntervalMs: 60_000 }),
        workspaceA,
        workspaceB,
        newTask,
        update,
        finished,
      };
    });

    afterAll(async () => {
      await context?.stores.events.close();
      await context?.otherStores.events.close();
      await target?.close();
    });

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

    describe("TaskStore", () => {
      it("creates a task with its seq-1 task event and gets it back", async () => {
        const input = newTask(context.workspaceA);
        const before = Date.now();
        const record = await context.stores.tasks.create(input);
        expect(record).toEqual({
          workspaceId: input.workspaceId,
          task: input.task,
          lastSeq: 1,
          lease: { owner: "runner-a", expiresAt: expect.any(String) },
          createdAt: input.createdAt,
        });
        // The lease runs from the store's clock (here on the same machine as the test's).
        const expiresAt = Date.parse(record.lease?.expiresAt ?? "");
        expect(expiresAt).toBeGreaterThanOrEqual(before + HOUR_MS - 2_000);
        expect(expiresAt).toBeLessThanOrEqual(Date.now() + HOUR_MS + 2_000);
        expect(await context.stores.tasks.get(context.workspaceA, input.task.id)).toEqual(record);
        const events = await context.stores.events.readAfter(input.task.id, 0);
        expect(events).toEqual([
          { taskId: input.task.id, seq: 1, event: "task", result: input.task, createdAt: input.createdAt },
        ]);
      });

      it("hides a task from another workspace and answers unknown or malformed ids with undefined", async () => {
        const input = newTask(context.workspaceA);
        await context.stores.tasks.create(input);
        expect(await context.stores.tasks.get(context.workspaceB, input.task.id)).toBeUndefined();
        expect(await context.stores.tasks.get(context.workspaceA, randomUUID())).toBeUndefined();
        expect(await context.stores.tasks.get(context.workspaceA, "not-a-uuid")).toBeUndefined();
        expect(await context.stores.tasks.get("'; drop table tasks; --", input.task.id)).toBeUndefined();
      });

      it("refuses a second task with the same id and leaves the first one's log alone", async () => {
        const input = newTask(context.workspaceA);
        await context.stores.tasks.create(input);
        await expect(context.stores.tasks.create({ ...input, createdAt: clock() })).rejects.toThrow();
        expect(await context.stores.events.readAfter(input.task.id, 0)).toHaveLength(1);
      });

      it("lists orphaned tasks (live, lease expired by the store's clock) oldest first, renews only the owner's live leases", async () => {
        const lease = (owner: string, durationMs: number) => ({ lease: { owner, durationMs } });
        const orphanA = await context.stores.tasks.create(newTask(context.workspaceA, lease("runner-a", -60_000)));
        const healthy = await context.stores.tasks.create(newTask(context.workspaceA, lease("runner-a", HOUR_MS)));
        const orphanB = await context.stores.tasks.create(newTask(context.workspaceB, lease("runner-b", -30_000)));
        const ended = await context.stores.tasks.create(newTask(context.workspaceA, lease("runner-a", -10_000)));
        await context.stores.events.append(ended.task.id, finished(ended.task));

        const orphaned = await context.stores.tasks.listOrphaned(10);
        expect(orphaned.map((r) => r.task.id)).toEqual([orphanA.task.id, orphanB.task.id]);
        expect(orphaned[1]).toEqual(orphanB);
        expect((await context.stores.tasks.listOrphaned(1)).map((r) => r.task.id)).toEqual([orphanA.task.id]);

        const renewed = await context.stores.tasks.renewLeases(
          "runner-a",
          [orphanA.task.id, healthy.task.id, orphanB.task.id, ended.task.id, randomUUID(), "junk"],
          HOUR_MS,
        );
        expect(renewed).toEqual([orphanA.task.id, healthy.task.id]);
        const renewedLease = (await context.stores.tasks.get(context.workspaceA, orphanA.task.id))?.lease;
        expect(renewedLease?.owner).toBe("runner-a");
        expect(Date.parse(renewedLease?.expiresAt ?? "")).toBeGreaterThan(Date.now() + HOUR_MS - 60_000);
        expect((await context.stores.tasks.listOrphaned(10)).map((r) => r.task.id)).toEqual([orphanB.task.id]);
        expect(await context.stores.tasks.renewLeases("runner-a", [], HOUR_MS)).toEqual([]);
      });
    });

    describe("EventLog", () => {
      it("numbers appended events 2, 3, 4 … and applies them to the snapshot", async () => {
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const first = await context.stores.events.append(task.id, update(task, 10));
        const second = await context.stores.events.append(task.id, update(task, 60));
        const artifactAt = clock();
        const third = await context.stores.events.append(task.id, {
          event: "update",
          createdAt: artifactAt,
          result: {
            kind: "artifact-update",
            taskId: task.id,
            contextId: task.contextId,
            artifact: { artifactId: "report", parts: [{ kind: "text", text: "aisle 4 done" }] },
          },
        });
        expect([first?.seq, second?.seq, third?.seq]).toEqual([2, 3, 4]);
        expect(third).toMatchObject({ taskId: task.id, event: "update", createdAt: artifactAt });
        const record = await context.stores.tasks.get(context.workspaceA, task.id);
        expect(record?.lastSeq).toBe(4);
        expect(record?.task.status).toEqual((must(second).result as { status: unknown }).status);
        expect(record?.task.artifacts).toEqual([
          { artifactId: "report", parts: [{ kind: "text", text: "aisle 4 done" }] },
        ]);
      });

      it("keeps sequence numbers gapless when many writers append at once", async () => {
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const results = await Promise.all(
          Array.from({ length: 12 }, (_, i) =>
            (i % 2 ? context.otherStores : context.stores).events.append(task.id, update(task, i)),
          ),
        );
        expect(results.map((e) => e?.seq).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
          Array.from({ length: 12 }, (_, i) => i + 2),
        );
        const log = await context.stores.events.readAfter(task.id, 0);
        expect(log.map((e) => e.seq)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
      });

      it("refuses appends once the task is terminal", async () => {
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const end = await context.stores.events.append(task.id, finished(task, "canceled"));
        expect(end?.seq).toBe(2);
        expect(await context.stores.events.append(task.id, update(task, 99))).toBeUndefined();
        expect(await context.stores.events.append(task.id, finished(task))).toBeUndefined();
        const record = await context.stores.tasks.get(context.workspaceA, task.id);
        expect(record?.lastSeq).toBe(2);
        expect(record?.task.status.state).toBe("canceled");
        // The final status message joins the history (applyTaskEvent).
        expect(record?.task.history.at(-1)?.parts).toEqual([{ kind: "text", text: "canceled" }]);
      });

      it("stores exactly one finished event when several finishers race", async () => {
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        await context.stores.events.append(task.id, update(task, 50));
        const states = ["completed", "canceled", "failed", "completed", "canceled", "failed"] as const;
        const results = await Promise.all(
          states.map((state, i) =>
            (i % 2 ? context.otherStores : context.stores).events.append(task.id, finished(task, state)),
          ),
        );
        const winners = results.filter((r): r is StoredTaskEvent => r !== undefined);
        expect(winners).toHaveLength(1);
        const log = await context.stores.events.readAfter(task.id, 0);
        expect(log.filter((e) => e.event === "finished")).toEqual(winners);
        const record = await context.stores.tasks.get(context.workspaceA, task.id);
        expect(record?.task.status).toEqual((must(winners[0]).result as { status: unknown }).status);
        expect(record?.lastSeq).toBe(3);
      });

      it("rejects an append to an unknown task", async () => {
        const ghost = newTask(context.workspaceA).task;
        await expect(context.stores.events.append(ghost.id, update(ghost, 1))).rejects.toThrow(/unknown task/);
        await expect(context.stores.events.append("nope", update(ghost, 1))).rejects.toThrow(/unknown task/);
      });

      it("reads after a sequence number, in order, at most limit", async () => {
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        for (let i = 0; i < 4; i++) await context.stores.events.append(task.id, update(task, i));
        const read = context.stores.events.readAfter.bind(context.stores.events);
        expect((await read(task.id, 2)).map((e) => e.seq)).toEqual([3, 4, 5]);
        expect((await read(task.id, 1, 2)).map((e) => e.seq)).toEqual([2, 3]);
        expect(await read(task.id, 5)).toEqual([]);
        expect(await read(task.id, 0, 0)).toEqual([]);
        expect(await read(randomUUID(), 0)).toEqual([]);
        expect(await read("not-a-uuid", 0)).toEqual([]);
        expect((await read(task.id, Number.NaN)).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      });

      it("stores events numbered by the task's runner, refusing one once somebody else wrote", async () => {
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const numbered = (seq: number, entry = update(task, seq)) => ({
          taskId: task.id,
          prevSeq: seq - 1,
          events: [{ taskId: task.id, seq, ...entry }],
          snapshot: applyTaskEvent(task, entry.result),
        });
        await expect(context.stores.events.appendNumbered(numbered(2))).resolves.toBe(true);
        // A cancel through another instance takes seq 3; the runner's own seq 3 is refused, not stored.
        await context.otherStores.events.append(task.id, finished(task, "canceled"));
        await expect(context.stores.events.appendNumbered(numbered(3))).resolves.toBe(false);
        const log = await context.stores.events.readAfter(task.id, 0);
        expect(log.map((e) => [e.seq, e.event])).toEqual([
          [1, "task"],
          [2, "update"],
          [3, "finished"],
        ]);
        const record = await context.stores.tasks.get(context.workspaceA, task.id);
        expect(record?.lastSeq).toBe(3);
        expect(record?.task.status.state).toBe("canceled");
      });

      it("stores several numbered events of one task together, or none of them", async () => {
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const artifact: NewTaskEvent = {
          event: "update",
          createdAt: clock(),
          result: {
            kind: "artifact-update",
            taskId: task.id,
            contextId: task.contextId,
            artifact: { artifactId: "report", parts: [{ kind: "text", text: "done" }] },
          },
        };
        const end = finished(task, "completed");
        const snapshot = applyTaskEvent(applyTaskEvent(task, artifact.result), end.result);
        const both = (prevSeq: number) => ({
          taskId: task.id,
          prevSeq,
          events: [
            { taskId: task.id, seq: prevSeq + 1, ...artifact },
            { taskId: task.id, seq: prevSeq + 2, ...end },
          ],
          snapshot,
        });
        // Numbered from the wrong place: refused, and neither event is stored.
        await expect(context.stores.events.appendNumbered(both(2))).resolves.toBe(false);
        expect(await context.stores.events.readAfter(task.id, 1)).toEqual([]);
        await expect(context.stores.events.appendNumbered(both(1))).resolves.toBe(true);
        const log = await context.otherStores.events.readAfter(task.id, 1);
        expect(log.map((e) => [e.seq, e.event])).toEqual([
          [2, "update"],
          [3, "finished"],
        ]);
        const record = await context.otherStores.tasks.get(context.workspaceA, task.id);
        expect(record?.lastSeq).toBe(3);
        expect(record?.task.status.state).toBe("completed");
        expect(record?.task.artifacts.map((a) => a.artifactId)).toEqual(["report"]);
      });

      it("commits concurrent numbered appends of many tasks together, each durable when it resolves", async () => {
        const tasks = await Promise.all(
          Array.from({ length: 40 }, () => context.stores.tasks.create(newTask(context.workspaceA))),
        );
        const results = await Promise.all(
          tasks.map(({ task }) => {
            const entry = update(task, 50);
            return context.stores.events.appendNumbered({
              taskId: task.id,
              prevSeq: 1,
              events: [{ taskId: task.id, seq: 2, ...entry }],
              snapshot: applyTaskEvent(task, entry.result),
            });
          }),
        );
        expect(results).toEqual(Array(40).fill(true));
        // Read through the other instance: what resolved is in the database for everyone.
        for (const { task } of tasks) {
          expect((await context.otherStores.events.readAfter(task.id, 1)).map((e) => e.seq)).toEqual([2]);
          expect((await context.otherStores.tasks.get(context.workspaceA, task.id))?.lastSeq).toBe(2);
        }
      });

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

      it("tells a watcher on another database instance about an append (NOTIFY across instances)", async () => {
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const told: Array<number | undefined> = [];
        let stop = () => {};
        const changed = new Promise<void>((resolve) => {
          stop = context.stores.events.watch(task.id, (seq) => {
            told.push(seq);
            resolve();
          });
        });
        await sleep(300);
        expect(told).toEqual([]); // nothing new yet: it really waits
        const appendedAt = Date.now();
        await context.otherStores.events.append(task.id, update(task, 5));
        // The re-read interval is a minute: only the notification can be this fast.
        await within(5_000, changed);
        expect(Date.now() - appendedAt).toBeLessThan(5_000);
        expect(told).toEqual([2]);
        stop();
      });

      it("stops telling a watcher once it stops watching", async () => {
        const { task } = await context.stores.tasks.create(newTask(context.workspaceA));
        const told: Array<number | undefined> = [];
        const stop = context.stores.events.watch(task.id, (seq) => told.push(seq));
        await sleep(200);
        stop();
        await context.otherStores.events.append(task.id, update(task, 1));
        await sleep(300);
        expect(told).toEqual([]);
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

    describe("IdempotencyStore", () => {
      it("creates exactly one task for 50 concurrent starts with one messageId", async () => {
        const messageId = `msg-${randomUUID()}`;
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            (i % 2 ? context.otherStores : context.stores).idempotency.createOrGet(
              messageId,
              newTask(context.workspaceA),
            ),
          ),
        );
        expect(results.filter((r) => r.created)).toHaveLength(1);
        const ids = new Set(results.map((r) => r.record.task.id));
        expect(ids.size).toBe(1);
        const [taskId] = [...ids] as [string];
        expect(results.every((r) => r.record.messageId === messageId)).toBe(true);
        const { rows } = await context.db.query<{ n: number }>(
          "select count(*)::int as n from tasks where workspace_id = $1 and message_id = $2",
          [context.workspaceA, messageId],
        );
        expect(rows[0]?.n).toBe(1);
        expect(await context.stores.events.readAfter(taskId, 0)).toHaveLength(1);
      });

      it("returns the original task for a retry even when the new request differs", async () => {
        const messageId = `msg-${randomUUID()}`;
        const original = await context.stores.idempotency.createOrGet(messageId, newTask(context.workspaceA));
        await context.stores.events.append(original.record.task.id, update(original.record.task, 30));
        const retry = newTask(context.workspaceA);
        retry.task.history[0] = { role: "user", messageId, parts: [{ kind: "text", text: "something else" }] };
        const again = await context.otherStores.idempotency.createOrGet(messageId, retry);
        expect(again.created).toBe(false);
        expect(again.record).toEqual(await context.stores.tasks.get(context.workspaceA, original.record.task.id));
        expect(again.record.lastSeq).toBe(2);
        expect(await context.stores.tasks.get(context.workspaceA, retry.task.id)).toBeUndefined();
      });

      it("keys by workspace and messageId: another key or another workspace is a new task", async () => {
        const messageId = `msg-${randomUUID()}`;
        const first = await context.stores.idempotency.createOrGet(messageId, newTask(context.workspaceA));
        const otherKey = await context.stores.idempotency.createOrGet(`${messageId}-2`, newTask(context.workspaceA));
        const otherWorkspace = await context.stores.idempotency.createOrGet(messageId, newTask(context.workspaceB));
        expect([first.created, otherKey.created, otherWorkspace.created]).toEqual([true, true, true]);
        expect(new Set([first, otherKey, otherWorkspace].map((r) => r.record.task.id)).size).toBe(3);
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

    describe("records are copies", () => {
      it("never shares objects with callers, in either direction", async () => {
        const input = newTask(context.workspaceA);
        const created = await context.stores.tasks.create(input);
        input.task.status.state = "failed";
        created.task.history.length = 0;
        const first = await context.stores.tasks.get(context.workspaceA, created.task.id);
        expect(first?.task.status.state).toBe("working");
        expect(first?.task.history).toHaveLength(1);
        if (!first) throw new Error("missing");
        first.task.artifacts.push({ artifactId: "x", parts: [] });
        first.lease = { owner: "thief", expiresAt: FAR_FUTURE };
        const second = await context.stores.tasks.get(context.workspaceA, created.task.id);
        expect(second).not.toBe(first);
        expect(second?.task.artifacts).toEqual([]);
        expect(second?.lease?.owner).toBe("runner-a");

        const entry = update(created.task, 40);
        const appended = await context.stores.events.append(created.task.id, entry);
        (entry.result as { metadata: Record<string, unknown> }).metadata.percent = -1;
        (must(appended).result as { metadata: Record<string, unknown> }).metadata.percent = -2;
        const [read] = await context.stores.events.readAfter(created.task.id, 1);
        expect((must(read).result as { metadata: Record<string, unknown> }).metadata.percent).toBe(40);
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

function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value");
  return value;
}

/** Resolves with `promise`, or fails the test if it takes longer than `ms`. */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
