import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { LOCK_FILE_NAME } from "@a2a-partner/postgres-store";
import { PGLITE_TEMPLATE_ENV, pgliteTemplatePaths } from "@a2a-partner/test-support/pglite-template";
import { writeDataDirDump } from "@a2a-partner/test-support/pglite-template-setup";
import { MIGRATED_TEMPLATE_ENV } from "./migrated-template.ts";

const SERVER_DIR = fileURLToPath(new URL("../..", import.meta.url));

/**
 * Vitest global set-up, after the empty template's (pglite-template-setup.ts): copies that template and
 * migrates it with the server's own `cli.ts migrate`, so the copy is what a server leaves on a new
 * directory; then dumps it for in-memory databases. Removed after the run.
 */
export default async function setup(): Promise<() => Promise<void>> {
  const empty = process.env[PGLITE_TEMPLATE_ENV];
  if (!empty) throw new Error(`${PGLITE_TEMPLATE_ENV} is unset: list pglite-template-setup.ts first in globalSetup`);
  const root = await mkdtemp(join(tmpdir(), "a2a-migrated-template-"));
  const remove = () => rm(root, { recursive: true, force: true });
  try {
    const paths = pgliteTemplatePaths(root);
    await mkdir(paths.dataDir, { recursive: true, mode: 0o700 });
    await cp(pgliteTemplatePaths(empty).dataDir, paths.dataDir, { recursive: true });
    await promisify(execFile)(process.execPath, ["src/cli.ts", "migrate"], {
      cwd: SERVER_DIR,
      // Only what the CLI needs: a DATABASE_URL (or any server setting) of the runner's would send the
      // migration elsewhere or refuse it.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TMPDIR: process.env.TMPDIR, DATA_DIR: paths.dataDir },
      timeout: 120_000,
    });
    // The CLI lets go of the directory when it exits; a lock left behind would make every copy "in use".
    if (existsSync(join(paths.dataDir, LOCK_FILE_NAME))) throw new Error("`cli.ts migrate` left its lock file behind");
    await writeDataDirDump(paths.dataDir, paths.dump);
    process.env[MIGRATED_TEMPLATE_ENV] = root;
    return remove;
  } catch (error) {
    await remove();
    throw error;
  }
}
