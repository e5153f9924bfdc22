import type { Database } from "../../src/database.js";

export { LEGACY_SERIES } from "../../src/internal/legacy-series.js";

/**
 * Earlier releases migrated with one series (0001..0007) recorded by version alone. Those files are gone;
 * a database they built holds the schema the current sources create, so a legacy database is made from
 * the current migrations by replacing `schema_migrations` with one of the old layout recording `versions`
 * (version → checksum).
 */
export async function recordAsLegacy(db: Database, versions: Iterable<[number, string]>): Promise<void> {
  await db.exec(`drop table schema_migrations;
    create table schema_migrations (
      version integer primary key,
      name text not null,
      checksum text not null,
      applied_at timestamptz not null default now()
    )`);
  for (const [version, checksum] of versions) {
    await db.query("insert into schema_migrations (version, name, checksum) values ($1, $2, $3)", [
      version,
      `000${version}_legacy`,
      checksum,
    ]);
  }
}
