/**
 * The fingerprint of what goes into a package's dist/: its sources (tests are not built), its build
 * configuration and the files every build reads. Kept in `dist/.build-fingerprint` by whichever build
 * wrote that dist/ (scripts/build-package.ts, every package's `build`), and compared by `pnpm start`
 * (scripts/build-if-stale.ts) to decide whether to build.
 */
import { createHash } from "node:crypto";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Files outside a package that every build reads. */
const SHARED_INPUTS = ["tsup.base.ts", "tsconfig.base.json", "pnpm-lock.yaml"];
/** A package's own inputs: its sources (tests are not built) and its build configuration. */
const PACKAGE_INPUTS = ["src", "package.json", "tsup.config.ts", "tsconfig.json"];
const STAMP = ".build-fingerprint";

async function files(path: string): Promise<string[]> {
  const entries = await readdir(path, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOTDIR") return undefined; // a file, not a folder
    if (error.code === "ENOENT") return [];
    throw error;
  });
  if (entries === undefined) return [path];
  const nested = await Promise.all(
    entries
      .filter((entry) => !entry.name.endsWith(".test.ts"))
      .map((entry) => (entry.isDirectory() ? files(join(path, entry.name)) : [join(path, entry.name)])),
  );
  return nested.flat();
}

/** The SHA-256 of every input's path and content: unchanged inputs, unchanged fingerprint. */
export async function fingerprint(pkg: string): Promise<string> {
  const inputs = [
    ...SHARED_INPUTS.map((name) => join(ROOT, name)),
    ...(await Promise.all(PACKAGE_INPUTS.map((name) => files(join(pkg, name))))).flat(),
  ].sort();
  const hash = createHash("sha256");
  for (const file of inputs) {
    hash.update(relative(ROOT, file)).update("\0");
    hash.update(await readFile(file).catch(() => Buffer.alloc(0))).update("\0");
  }
  return hash.digest("hex");
}

/** The fingerprint the package's dist/ was last built from ("" when never, or when dist/ was emptied). */
export async function builtFingerprint(pkg: string): Promise<string> {
  return (await readFile(join(pkg, "dist", STAMP), "utf8").catch(() => "")).trim();
}

export async function writeBuiltFingerprint(pkg: string, print: string): Promise<void> {
  await writeFile(join(pkg, "dist", STAMP), `${print}\n`);
}
