import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { LOCK_FILE_NAME } from "@a2a-partner/postgres-store";
import { describe, expect, it } from "vitest";
import { envelope, post } from "./support/rpc.ts";
import { pgliteStorePerTest, runCli, seedWithCli, startServerProcess } from "./support/server-process.ts";

// One embedded (PGlite) data directory, several real processes started in the same tick: the lock in the
// data directory decides, before anything opens it. Two processes on one directory would corrupt it.
describe("the embedded data directory is opened by one process at a time", () => {
  const freshStore = pgliteStorePerTest();

  it("of two servers started at the same instant, one comes up and the other exits 75 naming it", async () => {
    const store = await freshStore();
    const outcomes = await Promise.allSettled([startServerProcess(store.env), startServerProcess(store.env)]);
    const up = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    const refused = outcomes.flatMap((o) => (o.status === "rejected" ? [String(o.reason)] : []));
    expect(up).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(refused[0]).toContain(`exited (${EXIT_CODES.dataDirectoryInUse}) before listening`);
    expect(refused[0]).toMatch(new RegExp(`in use by server \\(pid ${up[0]?.pid} `));
    // What to do about it, said: a second server needs a data directory (and a port) of its own.
    expect(refused[0]).toContain("start this one with a DATA_DIR and a PORT of its own");
    const holder = JSON.parse(await readFile(join(store.dataDir, LOCK_FILE_NAME), "utf8"));
    expect(holder).toMatchObject({ pid: up[0]?.pid, owner: "server" });
  });

  it("a seed started with the server reaches the server, whichever takes the directory first", async () => {
    const store = await freshStore();
    const [server, seeded] = await Promise.all([startServerProcess(store.env), seedWithCli(store.env)]);
    // The seed's token works on the server: both used the same data, one after the other or through it.
    const res = await post(server.a2aUrl, envelope("GetTask", { id: "x" }), seeded.partnerToken);
    expect(res.status).toBe(200);
    expect((await res.json()).error.code).toBe(-32001);
  });

  it("a CLI command finds the directory in use by another CLI command and exits 75, not opening it", async () => {
    const store = await freshStore();
    // A generate that runs a while holds the lock; a migrate started meanwhile must not open the directory.
    await seedWithCli(store.env);
    const long = runCli(["generate", "--workspace", "demo", "--events", "200000", "--days", "30"], store.env);
    let holder: { owner?: string } = {};
    for (let i = 0; i < 100 && holder.owner !== "cli generate"; i++) {
      await new Promise((r) => setTimeout(r, 100));
      holder = JSON.parse(await readFile(join(store.dataDir, LOCK_FILE_NAME), "utf8").catch(() => "{}"));
    }
    expect(holder.owner).toBe("cli generate");
    const second = await runCli(["migrate"], store.env);
    expect(second.code).toBe(EXIT_CODES.dataDirectoryInUse);
    expect(second.stderr).toMatch(/is in use by cli generate \(pid \d+ /);
    expect((await long).code).toBe(EXIT_CODES.ok);
  });

  it("takes over the lock of a server that was killed", async () => {
    const store = await freshStore();
    const first = await startServerProcess(store.env);
    await first.kill("SIGKILL");
    // The lock file is still there, naming a dead process.
    expect(JSON.parse(await readFile(join(store.dataDir, LOCK_FILE_NAME), "utf8")).pid).toBe(first.pid);
    const second = await startServerProcess(store.env);
    expect((await fetch(`${second.url}/healthz`)).status).toBe(200);
  });
});
