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
  const db = await PGlite.create(paths.dataDir);
  const dump = await db.dumpDataDir("none");
  await db.close();
  await writeFile(paths.dump, Buffer.from(await dump.arrayBuffer()));
  process.env[PGLITE_TEMPLATE_ENV] = root;
  return () => rm(root, { recursive: true, force: true });
}
