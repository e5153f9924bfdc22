import { cp, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { freshPgliteOptions, seedPgliteDataDir } from "@a2a-partner/test-support/pglite-template";

/**
 * The main run's empty PGlite template (test/support/pglite-template.ts) with the reference schema already
 * migrated, made once by `migrated-template-setup.ts` (the run's second global set-up) with the real
 * `cli.ts migrate`. Server processes and in-memory databases that only need the schema start from it
 * instead of applying every migration again (about a second of CPU each, on the two cores every suite
 * shares). A test about migrating itself asks for the empty template (`seedPgliteDataDir`,
 * `freshPgliteOptions`) or its own `migrateWith`. Without the set-up (a single file run another way)
 * both helpers fall back to the empty template, and the first open migrates as on any new directory.
 */
export const MIGRATED_TEMPLATE_ENV = "A2A_TEST_MIGRATED_TEMPLATE";

/** The migrated template's on-disk data directory and its `dumpDataDir()` tarball, under one folder. */
export function migratedTemplatePaths(root: string): { dataDir: string; dump: string } {
  return { dataDir: join(root, "pgdata"), dump: join(root, "pgdata.tar") };
}

function templateRoot(): string | undefined {
  return process.env[MIGRATED_TEMPLATE_ENV] || undefined;
}

/** Fills the (absent) data directory `dataDir` with the migrated template, owner-only as PostgreSQL wants it. */
export async function seedMigratedDataDir(dataDir: string): Promise<void> {
  const root = templateRoot();
  if (!root) return seedPgliteDataDir(dataDir);
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await cp(migratedTemplatePaths(root).dataDir, dataDir, { recursive: true });
}

let dump: Promise<Blob> | undefined;

/** PGlite options for a fresh in-memory database with the reference schema in it (see above). */
export async function migratedPgliteOptions(): Promise<{ loadDataDir?: Blob }> {
  const root = templateRoot();
  if (!root) return freshPgliteOptions();
  dump ??= readFile(migratedTemplatePaths(root).dump).then((bytes) => new Blob([bytes]));
  return { loadDataDir: await dump };
}
