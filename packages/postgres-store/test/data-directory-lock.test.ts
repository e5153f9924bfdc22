import { spawn, spawnSync } from "node:child_process";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { LOCK_FILE_NAME } from "../src/index.js";

const packageDir = fileURLToPath(new URL("..", import.meta.url));

// Each contender is its own Node process on the built package: it takes the lock, holds it a moment (so
// every other contender finds it taken) and prints whether it won.
const contender = `
const { lockDataDirectory } = await import("@a2a-partner/postgres-store");
const dir = process.argv[1];
await new Promise((r) => setTimeout(r, Number(process.argv[2]) - Date.now()));
try {
  const lock = await lockDataDirectory(dir, { owner: "contender" });
  console.log("won");
  await new Promise((r) => setTimeout(r, 1500));
  await lock.release();
} catch (error) {
  console.log(error.name === "DataDirectoryLockedError" ? "refused" : "error: " + error.message);
}`;

function race(dir: string, contenders: number): Promise<string[]> {
  const startAt = Date.now() + 1500; // every process is up and waiting before the moment comes
  return Promise.all(
    Array.from(
      { length: contenders },
      () =>
        new Promise<string>((resolve) => {
          const child = spawn(process.execPath, ["--input-type=module", "-e", contender, dir, String(startAt)], {
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
    const outcomes = await race(dir, 8);
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
  });

  it("lets exactly one of eight processes take over a stale lock", async () => {
    const dir = await mkdtemp(join(tmpdir(), "lock-race-"));
    dirs.push(dir);
    const dead = spawnSync(process.execPath, ["-e", ""]).pid as number;
    await writeFile(
      join(dir, LOCK_FILE_NAME),
      JSON.stringify({ pid: dead, owner: "server", hostname: hostname(), since: "2025-01-01T00:00:00.000Z" }),
    );
    const outcomes = await race(dir, 8);
    expect(outcomes.filter((o) => o === "won")).toHaveLength(1);
    expect(outcomes.filter((o) => o !== "won").every((o) => o === "refused")).toBe(true);
  });
});
