/**
 * `pnpm start`'s build step: builds the packages only when what goes into their dist/ changed since the
 * last build, quietly (tsup's output only when it fails), under a lock so two starts at once never write
 * the same dist/ together. A fingerprint of each package's inputs is kept in its dist/. `pnpm build` is
 * this script with `--force`: it builds everything, shows tsup's output, and writes the fingerprints too,
 * so a start after it builds nothing (a package's build may empty its dist/, fingerprint included).
 *
 * Measured (2 cores): an unchanged tree is checked in ~0.1 s; a full build takes ~14 s.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PACKAGES = join(ROOT, "packages");
/** Files outside a package that every build reads. */
const SHARED_INPUTS = ["tsup.base.ts", "tsconfig.base.json", "pnpm-lock.yaml"];
/** A package's own inputs: its sources (tests are not built) and its build configuration. */
const PACKAGE_INPUTS = ["src", "package.json", "tsup.config.ts", "tsconfig.json"];
const STAMP = ".build-fingerprint";
const LOCK = join(ROOT, "node_modules", ".cache", "a2a-build.lock");
/** A build that has held the lock this long is presumed dead (its holder killed before it let go). */
const LOCK_STALE_MS = 5 * 60_000;

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
async function fingerprint(pkg: string): Promise<string> {
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

async function packagesToCheck(): Promise<string[]> {
  const dirs = await readdir(PACKAGES, { withFileTypes: true });
  return dirs.filter((d) => d.isDirectory()).map((d) => join(PACKAGES, d.name));
}

/** The packages whose dist/ was built from other inputs than today's (or never built). */
async function stale(): Promise<Array<{ pkg: string; print: string }>> {
  const result = [];
  for (const pkg of await packagesToCheck()) {
    const print = await fingerprint(pkg);
    const built = await readFile(join(pkg, "dist", STAMP), "utf8").catch(() => "");
    if (built.trim() !== print) result.push({ pkg, print });
  }
  return result;
}

/** mkdir is atomic: the one process that creates the folder holds the lock. */
async function withLock<T>(work: () => Promise<T>): Promise<T> {
  await mkdir(join(LOCK, ".."), { recursive: true });
  let announced = false;
  for (;;) {
    try {
      await mkdir(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const since = await readFile(join(LOCK, "since"), "utf8").catch(() => String(Date.now()));
      if (Date.now() - Number(since) > LOCK_STALE_MS) {
        await rm(LOCK, { recursive: true, force: true });
        continue;
      }
      if (!announced) process.stderr.write("waiting for another start's build of the packages…\n");
      announced = true;
      await sleep(200);
    }
  }
  await writeFile(join(LOCK, "since"), String(Date.now()));
  try {
    return await work();
  } finally {
    await rm(LOCK, { recursive: true, force: true });
  }
}

/** `pnpm build` with its output kept back: shown only if it fails. */
function build(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("pnpm", ["-r", "--filter", "./packages/*", "build"], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (output += chunk));
    child.once("error", reject);
    child.once("exit", (code) => resolve({ code, output }));
  });
}

/** `--force` (`pnpm build`): build every package, whatever the fingerprints say, and show the output. */
const FORCE = process.argv.includes("--force");

async function main(): Promise<number> {
  if (!FORCE && (await stale()).length === 0) return 0;
  return withLock(async () => {
    // Checked again under the lock: the start that held it may have just built the same sources.
    const before = FORCE ? (await packagesToCheck()).map((pkg) => ({ pkg })) : await stale();
    if (before.length === 0) return 0;
    const names = before.map(({ pkg }) => relative(ROOT, pkg)).join(", ");
    process.stderr.write(`building the packages (changed: ${names})…\n`);
    const started = performance.now();
    // The inputs as they are now: a file saved during the build makes the next start build again.
    const prints = await Promise.all((await packagesToCheck()).map(async (pkg) => [pkg, await fingerprint(pkg)]));
    // Everything, in dependency order: a package's declarations are built against its dependencies' dist.
    const { code, output } = await build();
    if (code !== 0) {
      process.stderr.write(`${output}\nthe build failed (exit ${code}); the output is above\n`);
      return 1;
    }
    if (FORCE) process.stdout.write(output);
    for (const [pkg, print] of prints) await writeFile(join(pkg as string, "dist", STAMP), `${print}\n`);
    process.stderr.write(`built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    return 0;
  });
}

process.exitCode = await main();
