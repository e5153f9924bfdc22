import { cp, mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** What these helpers run SQL through: a postgres-store `Database` fits. */
interface Sql {
  exec(sql: string): Promise<unknown>;
  query(sql: string, params?: unknown[]): Promise<unknown>;
}

/** A source of migrations as postgres-store's `migrate` takes them. */
interface MigrationSource {
  name: string;
  dir: string;
}

/** postgres-store's `migrate`, passed in so this private package needs none of the packages it tests. */
type Migrate<D extends Sql> = (db: D, options: { sources: MigrationSource[] }) => Promise<unknown>;

/**
 * Earlier releases migrated with one series (0001..0007) recorded by version alone. Those files are gone;
 * a database they built holds the schema the sources' baselines create (`migrateBaselinesOnly`), so a
 * legacy database is made from those by replacing `schema_migrations` with one of the old layout
 * recording `versions` (version → checksum).
 */
export async function recordAsLegacy(db: Sql, versions: Iterable<[number, string]>): Promise<void> {
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

/**
 * The schema a legacy database holds: each source's baseline (its first file) applied, none of the files
 * after it, which an adoption must then run.
 */
export async function migrateBaselinesOnly<D extends Sql>(
  db: D,
  sources: MigrationSource[],
  migrate: Migrate<D>,
): Promise<void> {
  const root = await mkdtemp(join(tmpdir(), "a2a-baselines-"));
  try {
    const baselines: MigrationSource[] = [];
    for (const source of sources) {
      const [baseline] = (await readdir(source.dir)).filter((file) => file.endsWith(".sql")).sort();
      if (!baseline) throw new Error(`no migrations in ${source.dir}`);
      const dir = join(root, source.name);
      await mkdir(dir);
      await cp(join(source.dir, baseline), join(dir, baseline));
      baselines.push({ name: source.name, dir });
    }
    await migrate(db, { sources: baselines });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
