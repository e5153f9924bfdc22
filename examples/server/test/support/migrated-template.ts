import {
  copyTemplateDataDir,
  freshPgliteOptions,
  seedPgliteDataDir,
  templateDump,
} from "@a2a-partner/test-support/pglite-template";

/**
 * The main run's empty PGlite template (test/support/pglite-template.ts) with the reference schema already
 * migrated, made once by `migrated-template-setup.ts` (the run's second global set-up) with the real
 * `cli.ts migrate` and laid out as the empty one is (`pgliteTemplatePaths`). Server processes and
 * in-memory databases that only need the schema start from it instead of applying every migration again
 * (about a second of CPU each, on the two cores every suite shares). A test about migrating itself asks
 * for the empty template (`seedPgliteDataDir`, `freshPgliteOptions`) or its own `migrateWith`. Without the
 * set-up (a single file run another way) both helpers fall back to the empty template, and the first
 * open migrates as on any new directory.
 */
export const MIGRATED_TEMPLATE_ENV = "A2A_TEST_MIGRATED_TEMPLATE";

function templateRoot(): string | undefined {
  return process.env[MIGRATED_TEMPLATE_ENV] || undefined;
}

/** Fills the (absent) data directory `dataDir` with the migrated template, owner-only as PostgreSQL wants it. */
export async function seedMigratedDataDir(dataDir: string): Promise<void> {
  const root = templateRoot();
  await (root ? copyTemplateDataDir(root, dataDir) : seedPgliteDataDir(dataDir));
}

/** PGlite options for a fresh in-memory database with the reference schema in it (see above). */
export async function migratedPgliteOptions(): Promise<{ loadDataDir?: Blob }> {
  const root = templateRoot();
  return root ? { loadDataDir: await templateDump(root) } : freshPgliteOptions();
}
