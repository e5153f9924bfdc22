import type { Queryable } from "../database.js";
import { LEGACY_SOURCE, legacyRefusal } from "./legacy-series.js";

/** One row per applied file, keyed by the source that ships it and the file's version within it. */
const CREATE_TABLE = `create table schema_migrations (
  source text not null,
  version integer not null,
  name text not null,
  checksum text not null,
  applied_at timestamptz not null default now(),
  primary key (source, version)
)`;

export interface AppliedMigration {
  source: string;
  version: number;
  checksum: string;
}

/**
 * Makes sure `schema_migrations` exists with the (source, version) layout and returns its rows. A table of
 * the legacy layout (version only) is converted, its rows kept under the `legacy` source, but only when it
 * records the complete legacy series; anything else is refused and left as it was. Call under the
 * migration lock, inside the migration's transaction.
 */
export async function readSchemaMigrations(tx: Queryable): Promise<AppliedMigration[]> {
  const layout = await tableLayout(tx);
  if (layout === "missing") await tx.query(CREATE_TABLE);
  if (layout === "legacy") await convertLegacyTable(tx);
  const { rows } = await tx.query<AppliedMigration>("select source, version, checksum from schema_migrations");
  return rows;
}

async function tableLayout(tx: Queryable): Promise<"missing" | "legacy" | "current"> {
  // Resolved through the search_path, as every unqualified statement of the migrator is.
  const { rows } = await tx.query<{ found: boolean; keyed_by_source: boolean }>(
    `select to_regclass('schema_migrations') is not null as found,
            exists (select 1 from pg_attribute
                     where attrelid = to_regclass('schema_migrations') and attname = 'source' and not attisdropped)
              as keyed_by_source`,
  );
  const row = rows[0];
  if (!row?.found) return "missing";
  return row.keyed_by_source ? "current" : "legacy";
}

async function convertLegacyTable(tx: Queryable): Promise<void> {
  const { rows } = await tx.query<{ version: number; checksum: string }>(
    "select version, checksum from schema_migrations",
  );
  const refusal = legacyRefusal(new Map(rows.map((row) => [row.version, row.checksum])));
  if (refusal !== undefined) {
    throw new Error(`refusing to migrate: this database was migrated by an earlier release, and ${refusal}`);
  }
  await tx.query("alter table schema_migrations rename to schema_migrations_legacy");
  await tx.query("alter index schema_migrations_pkey rename to schema_migrations_legacy_pkey");
  await tx.query(CREATE_TABLE);
  await tx.query(
    `insert into schema_migrations (source, version, name, checksum, applied_at)
     select $1, version, name, checksum, applied_at from schema_migrations_legacy`,
    [LEGACY_SOURCE],
  );
  await tx.query("drop table schema_migrations_legacy");
}
