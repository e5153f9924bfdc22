import { cp, mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * An empty PGlite cluster made once per test run (by `pglite-template-setup.ts`, the main Vitest run's
 * global set-up), for the suites that open fresh embedded databases by the dozen: PGlite's initdb costs
 * seconds of CPU each time, on the two cores every suite shares. Loading or copying the template instead
 * is the same cluster initdb would make; migrations still run on it as on any new database. Without the
 * set-up (a single file run another way, the consumer suite) every helper falls back to a real initdb.
 */
export const PGLITE_TEMPLATE_ENV = "A2A_TEST_PGLITE_TEMPLATE";

/** The template's on-disk data directory and its `dumpDataDir()` tarball, under one folder. */
export function pgliteTemplatePaths(root: string): { dataDir: string; dump: string } {
  return { dataDir: join(root, "pgdata"), dump: join(root, "pgdata.tar") };
}

function templateRoot(): string | undefined {
  return process.env[PGLITE_TEMPLATE_ENV] || undefined;
}

/**
 * PGlite options for a fresh in-memory database: `{ loadDataDir }` when the template exists, else none
 * (initdb). Spread into `PGlite.create("memory://", …)` or `openDatabase({ dataDir: "memory://", … })`.
 */
export async function freshPgliteOptions(): Promise<{ loadDataDir?: Blob }> {
  const root = templateRoot();
  return root ? { loadDataDir: await templateDump(root) } : {};
}

/**
 * Fills the (absent) on-disk data directory `dataDir` with the template, owner-only as PostgreSQL wants
 * it; without the template it is left absent, and the first open runs initdb.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const root = templateRoot();
  if (root) await copyTemplateDataDir(root, dataDir);
}

const dumps = new Map<string, Promise<Blob>>();

/** The dump of the template laid out under `root` (`pgliteTemplatePaths`), read once per process. */
export function templateDump(root: string): Promise<Blob> {
  let dump = dumps.get(root);
  if (!dump) {
    dump = readFile(pgliteTemplatePaths(root).dump).then((bytes) => new Blob([bytes]));
    dumps.set(root, dump);
  }
  return dump;
}

/** Copies the template laid out under `root` into the (absent) data directory `dataDir`. */
export async function copyTemplateDataDir(root: string, dataDir: string): Promise<void> {
  // Created as openDatabase creates one (owner-only), then filled.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await cp(pgliteTemplatePaths(root).dataDir, dataDir, { recursive: true });
}
