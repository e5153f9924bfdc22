import type { Database, Queryable } from "../database.js";
import { LEGACY_BASELINES, LEGACY_SOURCE } from "./legacy-series.js";
import { loadMigrations, type Migration, type MigrationSource } from "./migration-files.js";
import { storeMigrations } from "./migrations-dir.js";
import { type AppliedMigration, readSchemaMigrations } from "./schema-migrations.js";

export interface MigrateOptions {
  /**
   * The sources to apply, in order: every pending file of the first, then of the second, and so on. A
   * source may build on the tables of the sources before it. Default: this package's own migrations
   * alone (`[storeMigrations()]`).
   */
  sources?: readonly MigrationSource[];
}

export interface MigrateResult {
  /** `source/name` of the migrations this call applied, in order (empty when the schema was up to date). */
  applied: string[];
  /**
   * `source/name` of the migrations recorded without running them, because an earlier release's single
   * migration series had already created their tables (see the README's upgrade notes).
   */
  adopted: string[];
}

interface LoadedSource {
  name: string;
  migrations: Migration[];
}

/**
 * Any constant works as long as every migrator agrees on it. Passed as text and cast, so no JS number
 * precision question arises.
 */
const MIGRATION_LOCK_KEY = "4271937510466291";

const SOURCE_NAME = /^[a-z0-9][a-z0-9_-]*$/;

/**
 * Applies the pending migrations of each source in order, each file in its own transaction, and records
 * them in `schema_migrations` by (source, version) with a checksum. Safe to call from several processes at
 * once: each step holds a transaction-scoped advisory lock, so one process applies a migration and the
 * others find it done. Idempotent. A database migrated by an earlier release's single series is adopted.
 */
export async function migrate(db: Database, options: MigrateOptions = {}): Promise<MigrateResult> {
  const sources = await loadSources(options.sources ?? [storeMigrations()]);
  const result: MigrateResult = { applied: [], adopted: [] };
  for (;;) {
    const step = await db.transaction((tx) => applyNext(tx, sources));
    result.adopted.push(...step.adopted);
    if (step.applied === undefined) return result;
    result.applied.push(step.applied);
  }
}

async function loadSources(sources: readonly MigrationSource[]): Promise<LoadedSource[]> {
  const seen = new Set<string>();
  for (const { name } of sources) {
    if (!SOURCE_NAME.test(name) || name === LEGACY_SOURCE) {
      throw new TypeError(`invalid migration source name: ${JSON.stringify(name)}`);
    }
    if (seen.has(name)) throw new TypeError(`migration source ${name} is listed twice`);
    seen.add(name);
  }
  return Promise.all(sources.map(async ({ name, dir }) => ({ name, migrations: await loadMigrations(dir) })));
}

/**
 * Under the lock: adopts what a legacy database already holds, then applies the first migration not yet
 * recorded. `applied` is its `source/name`, or undefined when none is left.
 */
async function applyNext(
  tx: Queryable,
  sources: readonly LoadedSource[],
): Promise<{ applied?: string; adopted: string[] }> {
  await tx.query("select pg_advisory_xact_lock($1::bigint)", [MIGRATION_LOCK_KEY]);
  const recorded = await readSchemaMigrations(tx);
  const done = new Set(recorded.map((row) => key(row.source, row.version)));
  refuseEdited(sources, recorded);
  const adopted = await adoptLegacyBaselines(tx, sources, recorded, done);
  for (const source of sources) {
    const next = source.migrations.find((migration) => !done.has(key(source.name, migration.version)));
    if (!next) continue;
    await tx.exec(next.sql);
    await record(tx, source.name, next);
    return { applied: `${source.name}/${next.name}`, adopted };
  }
  return { adopted };
}

function refuseEdited(sources: readonly LoadedSource[], recorded: readonly AppliedMigration[]): void {
  const checksums = new Map(recorded.map((row) => [key(row.source, row.version), row.checksum]));
  for (const source of sources) {
    for (const migration of source.migrations) {
      const sum = checksums.get(key(source.name, migration.version));
      if (sum !== undefined && sum !== migration.checksum) {
        throw new Error(
          `migration ${source.name}/${migration.name} changed after it was applied; add a new migration instead of editing it`,
        );
      }
    }
  }
}

/**
 * On a database the legacy series built (its rows kept under the `legacy` source), a source that has
 * recorded nothing yet gets the files the legacy series covers recorded as applied, without running them.
 * Per source and on first sight, so a source added to the list later is adopted then.
 */
async function adoptLegacyBaselines(
  tx: Queryable,
  sources: readonly LoadedSource[],
  recorded: readonly AppliedMigration[],
  done: Set<string>,
): Promise<string[]> {
  if (!recorded.some((row) => row.source === LEGACY_SOURCE)) return [];
  const adopted: string[] = [];
  for (const source of sources) {
    const baseline = LEGACY_BASELINES.get(source.name);
    if (baseline === undefined || recorded.some((row) => row.source === source.name)) continue;
    for (const migration of source.migrations.filter((m) => m.version <= baseline)) {
      await record(tx, source.name, migration);
      done.add(key(source.name, migration.version));
      adopted.push(`${source.name}/${migration.name}`);
    }
  }
  return adopted;
}

async function record(tx: Queryable, source: string, migration: Migration): Promise<void> {
  await tx.query("insert into schema_migrations (source, version, name, checksum) values ($1, $2, $3, $4)", [
    source,
    migration.version,
    migration.name,
    migration.checksum,
  ]);
}

function key(source: string, version: number): string {
  return `${source}\u0000${version}`;
}
