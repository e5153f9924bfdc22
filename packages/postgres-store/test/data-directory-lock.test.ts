import { spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { seedPgliteDataDir } from "@a2a-partner/test-support/pglite-template";
import { afterAll, describe, expect, it } from "vitest";
import { LOCK_FILE_NAME, openDatabase } from "../src/index.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

// Each contender is its own Node process on the built package: it takes the lock, holds it a moment (so
// every other contender finds it taken, which takes a finder up to a few heartbeats) and prints whether it
// won. With "open", it opens the directory as a PGlite database instead of only locking it.
const contender = `
const { lockDataDirectory, openDatabase } = await import("@a2a-partner/postgres-store");
const [dir, startAt, mode] = process.argv.slice(1);
await new Promise((r) => setTimeout(r, Number(startAt) - Date.now()));
try {
  const held = mode === "open"
    ? await openDatabase({ dataDir: dir, lock: { owner: "contender" } })
    : await lockDataDirectory(dir, { owner: "contender" });
  if (mode === "open") await held.exec("create table t (pid int); insert into t values (" + process.pid + ")");
  console.log("won pid " + process.pid);
  await new Promise((r) => setTimeout(r, 5000));
  await (mode === "open" ? held.close() : held.release());
} catch (error) {
  console.log(error.name === "DataDirectoryLockedError" ? "refused pid " + process.pid : "error: " + error.message);
}`;

/** `unshare` works here: each contender can be PID 1 of a PID namespace of its own (Linux, as root). */
const canUnshare =
  process.platform === "linux" &&
  spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" }).status === 0;

function race(dir: string, contenders: number, options: { ownPidNamespace?: boolean; open?: boolean } = {}) {
  const startAt = Date.now() + 1500; // every process is up and waiting before the moment comes
  const node = [
    process.execPath,
    "--input-type=module",
    "-e",
    contender,
    dir,
    String(startAt),
    options.open ? "open" : "lock",
  ];
  const [command, ...args] = options.ownPidNamespace ? ["unshare", "--pid", "--fork", "--mount-proc", ...node] : node;
  return Promise.all(
    Array.from(
      { length: contenders },
      () =>
        new Promise<string>((resolve) => {
          const child = spawn(command as string, args, {
            cwd: packageDir,
            stdio: ["ignore", "pipe", "inherit"],
          });
          let out = "";
          child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
            out += chunk;
          });
          child.on("exit", () => resolve(out.trim()));
        }),
    ),
  );
}

describe("the data directory lock across processes started at the same instant", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("lets exactly one of eight processes take a free directory", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lock-race-"));
    dirs.push(dir);
    const outcomes = (await race(dir, 8)).map((o) => o.replace(/ pid \d+$/, ""));
    expect(outcomes.sort()).toEqual([
      "refused",
      "refused",
      "refused",
      "refused",
      "refused",
      "refused",
      "refused",
      "won",
    ]);
    expect(await readdir(dir)).toEqual([]);
  }, 30_000);

  // Two containers on one volume, a rolling update, a one-off `docker run … cli` next to the server: each
  // process is PID 1 of its own PID namespace, so a lock that decided by pid read the other's lock as its
  // own (or as stale), removed it, and both opened the directory.
  it.skipIf(!canUnshare)(
    "lets exactly one of two processes open a directory when each is PID 1 in its own PID namespace",
    async () => {
      const dir = await mkdtemp(join(tmpdir(), "lock-pidns-"));
      dirs.push(dir);
      await seedPgliteDataDir(dir); // the run's initdb template: the winner opens it without an initdb
      const outcomes = await race(dir, 2, { ownPidNamespace: true, open: true });
      expect(outcomes.sort()).toEqual(["refused pid 1", "won pid 1"]);
      // And the directory opens afterwards, holding what the one that ran wrote.
      const db = await openDatabase({ dataDir: dir, worker: false });
      try {
        expect((await db.query<{ pid: number }>("select pid from t")).rows).toEqual([{ pid: 1 }]);
      } finally {
        await db.close();
      }
    },
    60_000,
  );

  it("lets exactly one of eight processes take over a stale lock", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lock-race-"));
    dirs.push(dir);
    // A holder that died a minute ago: its heartbeat (the lock directory's mtime) stopped then.
    const lockDir = join(dir, "a2a-store.lock.d");
    await mkdir(lockDir);
    await utimes(lockDir, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    await writeFile(
      join(dir, LOCK_FILE_NAME),
      JSON.stringify({
        pid: 1,
        owner: "server",
        hostname: hostname(),
        since: "2025-01-01T00:00:00.000Z",
        lock: "heartbeat",
      }),
    );
    const outcomes = (await race(dir, 8)).map((o) => o.replace(/ pid \d+$/, ""));
    expect(outcomes.filter((o) => o === "won")).toHaveLength(1);
    expect(outcomes.filter((o) => o !== "won").every((o) => o === "refused")).toBe(true);
  }, 30_000);
});
