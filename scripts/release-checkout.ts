/**
 * An earlier commit of this repository as a ready-to-run tree (its packages installed and built), for the
 * tests and benches that run an earlier release beside this one: the rolling-upgrade test
 * (examples/server/test/rolling-upgrade.test.ts) and the old-against-new bench (`pnpm bench:a2a:ab --base`).
 *
 * The tree is exported with `git archive` (no second work tree in `.git`), installed from pnpm's store
 * (`--offline` first; the npm registry only for what the store lacks) and built by its own `prepare`, under
 * `.cache/releases/<commit>` (not under node_modules/, where Node does not run TypeScript); a finished tree
 * is reused. Needs the commit in this clone's
 * history: a full clone, not `--depth 1`.
 *
 *   node scripts/release-checkout.ts <commit>   # prints the tree's root
 */
import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";

const ROOT = resolve(import.meta.dirname, "..");
const CACHE = join(ROOT, ".cache", "releases");
/** A preparation that has held the lock this long is presumed dead (killed before it let go). */
const LOCK_STALE_MS = 10 * 60_000;
const run = promisify(execFile);

/** The root of `commit`'s tree, installed and built; prepared on first use (about a minute on two cores). */
export async function releaseCheckout(commit: string): Promise<string> {
  const full = await resolveCommit(commit);
  const dir = join(CACHE, full);
  const ready = join(dir, ".release-ready");
  if (existsSync(ready)) return dir;
  return withLock(`${dir}.lock`, async () => {
    if (existsSync(ready)) return dir;
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true });
    await shell(`git -C ${quote(ROOT)} archive ${full} | tar -x -C ${quote(dir)}`, ROOT);
    // The store of this machine's install holds nearly everything an earlier lockfile names.
    const offline = await shell("pnpm install --offline --frozen-lockfile", dir).then(
      () => true,
      () => false,
    );
    if (!offline) await shell("pnpm install --prefer-offline --frozen-lockfile", dir);
    await writeFile(ready, `${new Date().toISOString()}\n`);
    return dir;
  });
}

async function resolveCommit(commit: string): Promise<string> {
  try {
    const { stdout } = await run("git", ["-C", ROOT, "rev-parse", "--verify", `${commit}^{commit}`]);
    return stdout.trim();
  } catch {
    throw new Error(
      `commit ${commit} is not in this clone's history; the earlier release is built from it, so a full clone ` +
        "is needed (not `git clone --depth 1`; `git fetch --unshallow` repairs one)",
    );
  }
}

/** Runs a shell command in `cwd`; rejects with its output when it fails. */
function shell(command: string, cwd: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("sh", ["-c", command], { cwd, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      output += chunk;
    });
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`\`${command}\` in ${cwd} failed (${code}):\n${output.slice(-4000)}`));
    });
  });
}

const quote = (path: string) => `'${path.replaceAll("'", `'\\''`)}'`;

/** mkdir is atomic: the one process that creates the folder holds the lock (two test files at once). */
async function withLock<T>(lock: string, work: () => Promise<T>): Promise<T> {
  await mkdir(CACHE, { recursive: true });
  const since = Date.now();
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      if (Date.now() - since > LOCK_STALE_MS) await rm(lock, { recursive: true, force: true });
      else await sleep(500);
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const commit = process.argv[2];
  if (!commit) {
    console.error("usage: node scripts/release-checkout.ts <commit>");
    process.exit(2);
  }
  console.log(await releaseCheckout(commit));
}
