/**
 * `pnpm start`'s build step: builds the packages only when what goes into their dist/ changed since the
 * last build, quietly (tsup's output only when it fails), under a lock so two starts at once never write
 * the same dist/ together. Each package's own `build` (scripts/build-package.ts) records the fingerprint
 * of its inputs in its dist/ (scripts/build-fingerprint.ts), so a dist/ built by `pnpm -r build` or
 * `pnpm --filter … build` counts as current too. `pnpm build` is this script with `--force`: it builds
 * everything and shows tsup's output.
 *
 * Measured (2 cores): an unchanged tree is checked in ~0.1 s; a full build takes ~14 s.
 */
import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { builtFingerprint, fingerprint, ROOT } from "./build-fingerprint.ts";

const PACKAGES = join(ROOT, "packages");
const LOCK = join(ROOT, "node_modules", ".cache", "a2a-build.lock");
/** A build that has held the lock this long is presumed dead (its holder killed before it let go). */
const LOCK_STALE_MS = 5 * 60_000;

async function packagesToCheck(): Promise<string[]> {
  const dirs = await readdir(PACKAGES, { withFileTypes: true });
  return dirs.filter((d) => d.isDirectory()).map((d) => join(PACKAGES, d.name));
}

/** The packages whose dist/ was built from other inputs than today's (or never built). */
async function stale(): Promise<string[]> {
  const result = [];
  for (const pkg of await packagesToCheck()) {
    if ((await builtFingerprint(pkg)) !== (await fingerprint(pkg))) result.push(pkg);
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
    const before = FORCE ? await packagesToCheck() : await stale();
    if (before.length === 0) return 0;
    const names = before.map((pkg) => relative(ROOT, pkg)).join(", ");
    process.stderr.write(`building the packages (changed: ${names})…\n`);
    const started = performance.now();
    // Everything, in dependency order: a package's declarations are built against its dependencies' dist.
    const { code, output } = await build();
    if (code !== 0) {
      process.stderr.write(`${output}\nthe build failed (exit ${code}); the output is above\n`);
      return 1;
    }
    if (FORCE) process.stdout.write(output);
    process.stderr.write(`built in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    return 0;
  });
}

process.exitCode = await main();
