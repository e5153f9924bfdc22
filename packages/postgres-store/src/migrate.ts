import type { Database, Queryable } from "./database.js";
import { loadMigrations, type Migration } from "./internal/migration-files.js";
import { defaultMigrationsDir } from "./migrations-dir.js";

export interface MigrateOptions {
  /** Folder of `NNNN_name.sql` files. Default: the `migrations/` folder shipped with this package. */
  dir?: string;
}

export interface MigrateResult {
  /** Names of the migrations this call applied, in order (empty when the schema was up to date). */
  applied: string[];
}

/**
 * Any constant works as long as every migrator agrees on it. Passed as text and cast, so no JS number
 * precision question arises.
 */
const MIGRATION_LOCK_KEY = "4271937510466291";

const CREATE_SCHEMA_MIGRATIONS = `create table if not exists schema_migrations (
  version integer primary key,
  name text not null,
  checksum text not null,
  applied_at timestamptz not null default now()
)`;

/**
 * Applies the pending migrations in order, each in its own transaction, and records them in
 * `schema_migrations`. Safe to call from several processes at once: each step holds a transaction-scoped
 * advisory lock, so one process applies a migration and the others find it done. Idempotent.
 */
export async function migrate(db: Database, options: MigrateOptions = {}): Promise<MigrateResult> {
  const migrations = await loadMigrations(options.dir ?? defaultMigrationsDir());
  const applied: string[] = [];
  for (;;) {
    const name = await db.transaction((tx) => applyNext(tx, migrations));
    if (name === undefined) return { applied };
    applied.push(name);
  }
}

/** Applies the first migration not yet recorded; returns its name, or undefined when none is left. */
async function applyNext(tx: Queryable, migrations: readonly Migration[]): Promise<string | undefined> {
  await tx.query("select pg_advisory_xact_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
  await tx.query(CREATE_SCHEMA_MIGRATIONS);
  const { rows } = await tx.query<{ version: number; checksum: string }>(
    "select version, checksum from schema_migrations",
  );
  const done = new Map(rows.map((row) => [row.version, row.checksum]));
  for (const migration of migrations) {
    const recorded = done.get(migration.version);
    if (recorded !== undefined && recorded !== migration.checksum) {
      throw new Error(
        `migration ${migration.name} changed after it was applied; add a new migration instead of editing it`,
      );
    }
  }
  const next = migrations.find((migration) => !done.has(migration.version));
  if (!next) return undefined;
  await tx.exec(next.sql);
  await tx.query("insert into schema_migrations (version, name, checksum) values ($1, $2, $3)", [
    next.version,
    next.name,
    next.checksum,
  ]);
  return next.name;
}
