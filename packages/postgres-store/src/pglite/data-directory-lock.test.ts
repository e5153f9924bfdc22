import { spawnSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DataDirectoryLockedError, LOCK_FILE_NAME, type LockHolder, lockDataDirectory } from "./data-directory-lock.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "lock-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The pid of a process that has exited (a child that ran and ended). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ["-e", ""]);
  return child.pid as number;
}

function writeLock(holder: Partial<LockHolder>) {
  const full = { owner: "server", hostname: hostname(), since: "2025-01-01T00:00:00.000Z", ...holder };
  return writeFile(join(dir, LOCK_FILE_NAME), JSON.stringify(full));
}

describe("lockDataDirectory", () => {
  it("writes the holder into the lock file and removes it on release", async () => {
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

  it("refuses a lock held by another live process", async () => {
    // pid 1 always runs; without a recorded start time only its liveness counts.
    await writeLock({ pid: 1 });
    await expect(lockDataDirectory(dir)).rejects.toBeInstanceOf(DataDirectoryLockedError);
  });

  it("takes over a lock whose holder died", async () => {
    await writeLock({ pid: deadPid() });
    const lock = await lockDataDirectory(dir, { owner: "server" });
    expect(JSON.parse(await readFile(lock.path, "utf8")).pid).toBe(process.pid);
    await lock.release();
  });

  it("takes over a lock naming this process's pid that this process never took (a restarted container)", async () => {
    await writeLock({ pid: process.pid });
    await (await lockDataDirectory(dir)).release();
  });

  it.skipIf(process.platform !== "linux")(
    "takes over a lock whose pid now belongs to a process started at another time (a reused pid)",
    async () => {
      await writeLock({ pid: 1, processStart: "1" });
      await (await lockDataDirectory(dir)).release();
    },
  );

  it("takes over a lock file that is not a lock (garbage)", async () => {
    await writeFile(join(dir, LOCK_FILE_NAME), "{not json");
    await (await lockDataDirectory(dir)).release();
  });

  it("leaves no temporary files behind", async () => {
    await writeLock({ pid: deadPid() });
    const lock = await lockDataDirectory(dir);
    expect(await readdir(dir)).toEqual([LOCK_FILE_NAME]);
    await lock.release();
  });

  it("does not remove a lock that another process took after this one's was removed", async () => {
    const lock = await lockDataDirectory(dir);
    await rm(lock.path);
    await writeLock({ pid: 1, owner: "someone else" });
    await lock.release();
    expect(JSON.parse(await readFile(join(dir, LOCK_FILE_NAME), "utf8")).owner).toBe("someone else");
  });
});
