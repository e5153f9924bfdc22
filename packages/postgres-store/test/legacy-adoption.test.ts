import { randomUUID } from "node:crypto";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyTaskEvent, isTerminalState, type NewTaskEvent, type Task } from "@a2a-partner/a2a-core";
import { toV03Event, toV03State, toV03Task } from "@a2a-partner/a2a-core/protocol";
import { must, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { migrateBaselinesOnly, recordAsLegacy } from "@a2a-partner/test-support/legacy-schema";
import { freshPgliteOptions } from "@a2a-partner/test-support/pglite-template";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  createPostgresStores,
  type Database,
  defaultMigrationsDir,
  LEGACY_MIGRATION_SERIES as LEGACY_SERIES,
  migrate,
  openDatabase,
  storeMigrations,
} from "../src/index.js";
import { STORE_MIGRATION_FILES } from "./support/store-migration-files.js";

/**
 * A task and its events in the first file's schema, whose trigger derives `status_at` from the snapshot;
 * in A2A v0.3's shapes and state spelling, as that release wrote them.
 */
async function insertLegacyTask(db: Database, workspaceId: string, task: Task, events: NewTaskEvent[]): Promise<void> {
  let snapshot = task;
  for (const event of events) snapshot = applyTaskEvent(snapshot, event.result);
  await db.query(
    `insert into tasks (id, workspace_id, context_id, snapshot, state, terminal, last_seq, lease_owner, lease_expires_at)
     values ($1, $2, $3, $4::jsonb, $5, $6, $7, 'runner-legacy', now() + interval '1 hour')`,
    [
      task.id,
      workspaceId,
      task.contextId,
      JSON.stringify(toV03Task(snapshot)),
      toV03State(snapshot.status.state),
      isTerminalState(snapshot.status.state),
      1 + events.length,
    ],
  );
  const rows = [{ event: "task", result: { task }, createdAt: task.status.timestamp }, ...events];
  for (const [i, row] of rows.entries()) {
    await db.query(
      "insert into task_events (task_id, seq, event, result, created_at) values ($1, $2, $3, $4::jsonb, $5)",
      [task.id, i + 1, row.event, JSON.stringify(toV03Event(row.result)), row.createdAt],
    );
  }
}

async function schemaMigrations(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ row: string }>(
    "select source || '/' || version || '/' || checksum as row from schema_migrations order by source, version",
  );
  return rows.map((r) => r.row);
}

describe("a database migrated by the legacy series", () => {
  const { newTask, finished } = storeFixtures();
  const workspaceId = randomUUID();
  let db: Database;

  beforeAll(async () => {
    db = await openDatabase({ dataDir: "memory://", ...(await freshPgliteOptions()) });
    await migrateBaselinesOnly(db, [storeMigrations()], migrate);
  });
  afterAll(async () => db?.close());

  it("is refused while partly migrated, and left as it was", async () => {
    await recordAsLegacy(db, [...LEGACY_SERIES].slice(0, 5));
    await expect(migrate(db)).rejects.toThrow(
      /partly migrated \(versions 6, 7 of 1\.\.7 are missing\).*previous release/,
    );
    const { rows } = await db.query<{ n: number }>("select count(*)::int as n from schema_migrations");
    expect(rows[0]?.n).toBe(5);
  });

  it("is refused when its files were not the released ones", async () => {
    await recordAsLegacy(
      db,
      [...LEGACY_SERIES].map(([version, sum]) => [version, version === 3 ? "0".repeat(64) : sum]),
    );
    await expect(migrate(db)).rejects.toThrow(/versions 3 were applied from files other than the released ones/);
  });

  it("is adopted: nothing re-runs, the baseline is recorded, the old rows and the data stay", async () => {
    const stores = createPostgresStores(db);
    // Rows as the legacy schema holds them, written the way its release wrote them (this release's store
    // writes and reads columns that only its later files add).
    const running = newTask(workspaceId).task;
    const started = newTask(workspaceId).task;
    await insertLegacyTask(db, workspaceId, running, []);
    const end = finished(started);
    await insertLegacyTask(db, workspaceId, started, [end]);
    await recordAsLegacy(db, LEGACY_SERIES);
    const { rows: legacyRows } = await db.query<{ row: string }>(
      "select version || '/' || checksum as row from schema_migrations order by version",
    );

    // The baseline is recorded without running; the source's later files run as usual.
    expect(await migrate(db)).toEqual({
      applied: STORE_MIGRATION_FILES.slice(1),
      adopted: ["a2a-store/0001_tasks"],
    });
    const after = await schemaMigrations(db);
    expect(after.filter((row) => row.startsWith("legacy/"))).toEqual(legacyRows.map((r) => `legacy/${r.row}`));
    expect(
      after.filter((row) => !row.startsWith("legacy/")).map((row) => row.split("/").slice(0, 2).join("/")),
    ).toEqual(STORE_MIGRATION_FILES.map((file) => `a2a-store/${Number(/\/(\d+)_/.exec(file)?.[1])}`));
    const stored = must(await stores.tasks.get(workspaceId, running.id));
    expect(stored.task).toEqual(running);
    expect(stored.lastSeq).toBe(1);
    const ended = must(await stores.tasks.get(workspaceId, started.id));
    expect(ended.task.status.state).toBe("TASK_STATE_COMPLETED");
    expect((await stores.events.readAfter(started.id, 0)).map((event) => event.result)).toEqual([
      { task: started },
      end.result,
    ]);
    // Tasks that ended before the later files ran are listed by them as any other (0003 moved ListTasks'
    // index of ended tasks to a column it filled in).
    const listed = await stores.tasks.list?.(workspaceId, { pageSize: 10 });
    expect(listed?.tasks.map((task) => [task.id, task.status.state])).toEqual([
      [ended.task.id, "TASK_STATE_COMPLETED"],
      [stored.task.id, "TASK_STATE_WORKING"],
    ]);
    expect((await stores.tasks.list?.(workspaceId, { pageSize: 10, state: "TASK_STATE_COMPLETED" }))?.totalSize).toBe(
      1,
    );
    expect(await migrate(db)).toEqual({ applied: [], adopted: [] });

    // A newer file of the source runs as usual after the adoption.
    const dir = await mkdtemp(join(tmpdir(), "a2a-migrations-"));
    try {
      await cp(defaultMigrationsDir(), dir, { recursive: true });
      await writeFile(join(dir, "0099_newer.sql"), "create table zz_newer (id int);");
      expect(await migrate(db, { sources: [{ name: "a2a-store", dir }] })).toEqual({
        applied: ["a2a-store/0099_newer"],
        adopted: [],
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    await stores.events.close();
  });
});
