import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/** One package's ordered migrations: a folder of `NNNN_name.sql` files, recorded under `name`. */
export interface MigrationSource {
  /**
   * Keys the source's rows in `schema_migrations`; never rename a source once a database recorded it.
   * This package's own is `a2a-store`, metrics-core's `metrics`.
   */
  name: string;
  /** Folder of `NNNN_name.sql` files; each source numbers its files on its own. */
  dir: string;
}

export interface Migration {
  /** The number the file name starts with; migrations run in ascending order. */
  version: number;
  /** The file name without `.sql`, e.g. `0001_core`. */
  name: string;
  sql: string;
  /** SHA-256 (hex) of the file, to notice a migration edited after it was applied. */
  checksum: string;
}

const FILE_NAME = /^(\d+)_([A-Za-z0-9_-]+)\.sql$/;

/** `0001_core.sql` → `{ version: 1, name: "0001_core" }`; anything else → undefined (not a migration). */
export function parseMigrationFileName(fileName: string): { version: number; name: string } | undefined {
  const match = FILE_NAME.exec(fileName);
  if (!match?.[1]) return undefined;
  return { version: Number.parseInt(match[1], 10), name: fileName.slice(0, -".sql".length) };
}

export function checksum(sql: string): string {
  return createHash("sha256").update(sql).digest("hex");
}

/** Orders parsed migrations and refuses two files with one version number. */
export function orderMigrations(migrations: readonly Migration[]): Migration[] {
  const sorted = [...migrations].sort((a, b) => a.version - b.version);
  for (let i = 1; i < sorted.length; i++) {
    const previous = sorted[i - 1];
    const current = sorted[i];
    if (previous && current && previous.version === current.version) {
      throw new Error(`two migrations share version ${current.version}: ${previous.name}, ${current.name}`);
    }
  }
  return sorted;
}

/** Reads every `NNNN_name.sql` of `dir`, in version order. Other files are ignored. */
export async function loadMigrations(dir: string): Promise<Migration[]> {
  const names = await readdir(dir);
  const migrations: Migration[] = [];
  for (const fileName of names) {
    const parsed = parseMigrationFileName(fileName);
    if (!parsed) continue;
    const sql = await readFile(join(dir, fileName), "utf8");
    migrations.push({ ...parsed, sql, checksum: checksum(sql) });
  }
  return orderMigrations(migrations);
}
