import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { PGLITE_TEMPLATE_ENV, pgliteTemplatePaths } from "./pglite-template.ts";

/**
 * Vitest global set-up: runs initdb once for the whole run (see pglite-template.ts) and tells the test
 * workers where the template is; removes it after the run.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const root = await mkdtemp(join(tmpdir(), "a2a-pglite-template-"));
  const paths = pgliteTemplatePaths(root);
  await writeDataDirDump(paths.dataDir, paths.dump);
  process.env[PGLITE_TEMPLATE_ENV] = root;
  return () => rm(root, { recursive: true, force: true });
}

/** Opens the on-disk cluster `dataDir` (initdb when empty) and writes its `dumpDataDir()` tarball to `file`. */
export async function writeDataDirDump(dataDir: string, file: string): Promise<void> {
  const db = await PGlite.create(dataDir);
  const dump = await db.dumpDataDir("none");
  await db.close();
  await writeFile(file, Buffer.from(await dump.arrayBuffer()));
}
