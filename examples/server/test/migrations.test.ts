import { readdir } from "node:fs/promises";
import { compactMetricsRollups } from "@a2a-partner/metrics-core";
import {
  type Database,
  LEGACY_MIGRATION_SERIES as LEGACY_SERIES,
  migrate,
  storeMigrations,
} from "@a2a-partner/postgres-store";
import { migrateBaselinesOnly, recordAsLegacy } from "@a2a-partner/test-support/legacy-schema";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { migrateReferenceSchema, referenceSchemaSources } from "../src/migrations.ts";
import { seed } from "../src/seed.ts";
import { type Backend, createTestDatabase, postgresAvailable, type TestDatabase } from "./support/backends.ts";

// Under CI=true postgresAvailable() is true, so an unreachable PostgreSQL fails this file instead of skipping.
const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

const BASELINES = ["a2a-store/0001_tasks", "metrics/0001_metrics", "reference-server/0001_reference_server"];
/** Files after the baselines: on a database the legacy series built, these run as usual. */
const LATER = [
  // The store package's own files after its baseline, as it ships them (its suites list them one by one).
  ...(await storeFilesAfterBaseline()),
  "metrics/0002_no_statistics_on_payload",
  "metrics/0003_timestamps_within_window_range",
  "metrics/0004_metrics_serial_plan",
  "reference-server/0002_workspace_default_environment",
  "reference-server/0003_push_signing_secrets",
  "reference-server/0004_access_change_announcements",
];
/** Every file, in the order `schema_migrations` lists them (by source, then version). */
const ALL = [...BASELINES, ...LATER].sort();

async function storeFilesAfterBaseline(): Promise<string[]> {
  const source = storeMigrations();
  const files = (await readdir(source.dir)).filter((file) => file.endsWith(".sql")).sort();
  return files.slice(1).map((file) => `${source.name}/${file.replace(/\.sql$/, "")}`);
}

async function recorded(db: Database): Promise<string[]> {
  const { rows } = await db.query<{ file: string }>(
    "select source || '/' || name as file from schema_migrations where source <> 'legacy' order by source, version",
  );
  return rows.map((row) => row.file);
}

describe.each(backends)("the reference schema on %s", (backend) => {
  let database: TestDatabase;
  beforeAll(async () => {
    // Migrated here, not taken from the run's migrated template: applying them is what this file tests.
    database = await createTestDatabase(backend, { migrateWith: migrateReferenceSchema });
  });
  afterAll(async () => database?.drop());

  it("comes from three sources, applied in order", async () => {
    expect(referenceSchemaSources().map((source) => source.name)).toEqual(["a2a-store", "metrics", "reference-server"]);
    expect(await recorded(database.db)).toEqual(ALL);
    expect(await migrateReferenceSchema(database.db)).toEqual({ applied: [], adopted: [] });
  });

  it("binds the store's and the metrics' tables to the server's workspaces", async () => {
    const { rows } = await database.db.query<{ name: string; def: string }>(
      // This schema's constraints only: other test files' schemas in the same database have the same names.
      `select conname as name, pg_get_constraintdef(oid) as def from pg_constraint
        where conname in ('tasks_workspace_id_fkey', 'workflows_workspace_id_fkey')
          and connamespace = current_schema()::regnamespace
        order by conname`,
    );
    expect(rows).toEqual([
      {
        name: "tasks_workspace_id_fkey",
        def: "FOREIGN KEY (workspace_id) REFERENCES workspaces(id) ON DELETE CASCADE",
      },
      { name: "workflows_workspace_id_fkey", def: "FOREIGN KEY (workspace_id) REFERENCES workspaces(id)" },
    ]);
  });

  it("refuses a legacy database that is only partly migrated", async () => {
    await recordAsLegacy(database.db, [...LEGACY_SERIES].slice(0, 6));
    await expect(migrateReferenceSchema(database.db)).rejects.toThrow(/version.* 7 .*previous release/);
  });

  it("adopts a legacy database: nothing re-runs, the baselines are recorded, the data stays", async () => {
    // What the legacy series built: the baselines' schema, none of the later files.
    const legacyDatabase = await createTestDatabase(backend, {
      migrateWith: (db) => migrateBaselinesOnly(db, referenceSchemaSources(), migrate),
    });
    onTestFinished(() => legacyDatabase.drop());
    const { db } = legacyDatabase;
    const demo = await seed(db);
    const workflow = await db.query<{ id: string }>(
      "insert into workflows (workspace_id, name) values ($1, 'pick') returning id",
      [demo.workspace.uuid],
    );
    await db.query(
      `insert into workflow_executions (workspace_id, workflow_id, status, started_at)
       values ($1, $2, 'completed', '2025-03-04T05:06:07Z'), ($1, $2, 'failed', '2025-03-04T06:00:00Z')`,
      [demo.workspace.uuid, workflow.rows[0]?.id],
    );
    const counts = () =>
      db.query<Record<string, number>>(
        `select (select count(*)::int from workspaces) as workspaces, (select count(*)::int from api_tokens) as tokens,
                (select count(*)::int from workflow_executions) as executions,
                (select coalesce(sum(count), 0)::int from metrics_deltas_workflow_executions) as deltas`,
      );
    const before = (await counts()).rows[0];
    await recordAsLegacy(db, LEGACY_SERIES);

    expect(await migrateReferenceSchema(db)).toEqual({ applied: LATER, adopted: BASELINES });
    expect(await recorded(db)).toEqual(ALL);
    const legacy = await db.query<{ n: number }>(
      "select count(*)::int as n from schema_migrations where source = 'legacy'",
    );
    expect(legacy.rows[0]?.n).toBe(7);
    expect((await counts()).rows[0]).toEqual(before);
    expect(before?.deltas).toBe(2);
    // The rollup machinery still works on the adopted schema.
    expect(await compactMetricsRollups(db)).toBeGreaterThan(0);
    expect(await migrateReferenceSchema(db)).toEqual({ applied: [], adopted: [] });
  });
});
