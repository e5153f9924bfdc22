import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DataDirectoryLockedError, LOCK_FILE_NAME, LOCK_STALE_MS, lockDataDirectory } from "./data-directory-lock.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lock-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A lock left by a holder whose last heartbeat was `ageMs` ago (it died then), naming it. */
async function leftLock(ageMs: number, holder: Record<string, unknown> = { pid: 1, lock: "heartbeat" }) {
  const lockDir = join(dir, "a2a-store.lock.d");
  await mkdir(lockDir);
  const at = new Date(Date.now() - ageMs);
  await utimes(lockDir, at, at);
  await writeFile(
    join(dir, LOCK_FILE_NAME),
    JSON.stringify({ owner: "server", hostname: "elsewhere", since: "2025-01-01T00:00:00.000Z", ...holder }),
  );
}

describe("lockDataDirectory", () => {
  it("writes the holder beside the lock and removes both on release", async () => {
    const lock = await lockDataDirectory(dir, { owner: "cli seed" });
    const holder = JSON.parse(await readFile(lock.path, "utf8"));
    expect(holder).toMatchObject({ pid: process.pid, owner: "cli seed", hostname: hostname() });
    await lock.release();
    await lock.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it("refuses a second lock while the first is held, in this process too, naming the holder", async () => {
    const lock = await lockDataDirectory(dir, { owner: "server" });
    const refused = await lockDataDirectory(dir, { owner: "cli seed" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirectoryLockedError);
    expect((refused as DataDirectoryLockedError).holder).toMatchObject({ pid: process.pid, owner: "server" });
    expect((refused as Error).message).toMatch(new RegExp(`in use by server \\(pid ${process.pid} `));
    await lock.release();
    await (await lockDataDirectory(dir)).release();
  });

  it("takes over at once a lock whose heartbeat stopped long ago (its holder died)", async () => {
    await leftLock(LOCK_STALE_MS + 5_000);
    const started = Date.now();
    const lock = await lockDataDirectory(dir, { owner: "server" });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(JSON.parse(await readFile(lock.path, "utf8")).pid).toBe(process.pid);
    await lock.release();
  });

  it("waits for a lock whose heartbeat just stopped to go stale, then takes it over (a restart after a crash)", async () => {
    await leftLock(LOCK_STALE_MS - 3_000);
    const started = Date.now();
    const lock = await lockDataDirectory(dir);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2_500);
    await lock.release();
  }, 20_000);

  it("judges by the heartbeat, never by the pid: a lock naming this very pid is not taken over while it beats", async () => {
    // What a container restarted on the same volume sees: the holder's pid is its own (both are pid 1).
    await leftLock(0, { pid: process.pid, lock: "heartbeat" });
    const lockDir = join(dir, "a2a-store.lock.d");
    const beat = setInterval(() => void utimes(lockDir, new Date(), new Date()).catch(() => undefined), 300);
    try {
      await expect(lockDataDirectory(dir)).rejects.toBeInstanceOf(DataDirectoryLockedError);
    } finally {
      clearInterval(beat);
    }
  });

  it("refuses a lock file of an earlier version (pid-based), telling the operator what to delete", async () => {
    await writeFile(join(dir, LOCK_FILE_NAME), JSON.stringify({ pid: 1, owner: "server", since: "x" }));
    const refused = await lockDataDirectory(dir).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DataDirectoryLockedError);
    expect((refused as Error).message).toContain(`delete ${join(dir, LOCK_FILE_NAME)}`);
  });

  it("takes over a holder file that is garbage", async () => {
    await writeFile(join(dir, LOCK_FILE_NAME), "{not json");
    await (await lockDataDirectory(dir)).release();
    expect(await readdir(dir)).toEqual([]);
  });
});
