import { chown, lstat, mkdir, readdir, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { EXIT_CODES, MAX_SOCKET_PATH_BYTES } from "@a2a-partner/a2a-core/node-runtime";
import { describe, expect, it } from "vitest";
import { pgliteStorePerTest, runCli, startServerProcess } from "./support/server-process.ts";

const isRoot = process.getuid?.() === 0;

// The control socket hands out tokens: only its owner may reach it, and the CLI only talks to a socket
// its own user controls.
describe("the control socket of an embedded server", () => {
  const freshStore = pgliteStorePerTest();

  it("lives in an owner-only directory beside the data directory", async () => {
    const store = await freshStore();
    await startServerProcess(store.env);
    const dir = `${store.dataDir}.run`;
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    const socket = await lstat(join(dir, "control.sock"));
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o077).toBe(0);
    // Nothing of it in the parent folder any more (it used to be dirname(DATA_DIR)/control.sock).
    expect((await readdir(dirname(store.dataDir))).sort()).toEqual(["pglite", "pglite.run"]);
  });

  it("tightens a control directory that others could enter before the socket exists", async () => {
    const store = await freshStore();
    await mkdir(`${store.dataDir}.run`, { mode: 0o777 });
    await startServerProcess(store.env);
    expect((await stat(`${store.dataDir}.run`)).mode & 0o777).toBe(0o700);
  });

  it("refuses a DATA_DIR too long for a Unix socket, telling to shorten it, instead of using /tmp", async () => {
    const store = await freshStore();
    const dataDir = join(store.dataDir, "d".repeat(MAX_SOCKET_PATH_BYTES));
    const before = (await readdir(tmpdir())).filter((name) => name.startsWith("a2a-control-"));
    for (const args of [["serve"], ["token", "list"]]) {
      const run = await runCli(args, { DATA_DIR: dataDir, PORT: "0" });
      expect(run.code).toBe(EXIT_CODES.config);
      expect(run.stderr).toMatch(/longer than Unix sockets allow \(100\); set a shorter DATA_DIR/);
    }
    expect((await readdir(tmpdir())).filter((name) => name.startsWith("a2a-control-"))).toEqual(before);
  });

  it.runIf(isRoot)("the CLI refuses a control socket that another user owns", async () => {
    const store = await freshStore();
    await startServerProcess(store.env);
    // As if another user had put a socket in the way: the CLI must not send it anything.
    await chown(join(`${store.dataDir}.run`, "control.sock"), 65534, 65534);
    const listed = await runCli(["token", "list"], store.env);
    expect(listed.code).toBe(EXIT_CODES.failure);
    expect(listed.stderr).toMatch(/refusing to use .*control\.sock: it belongs to uid 65534, not to you \(uid 0\)/);
  });

  it.runIf(isRoot)("a server refuses a control directory that belongs to another user", async () => {
    const store = await freshStore();
    await mkdir(`${store.dataDir}.run`, { mode: 0o700 });
    await chown(`${store.dataDir}.run`, 65534, 65534);
    await expect(startServerProcess(store.env)).rejects.toThrow(/belongs to uid 65534, not to this user/);
  });
});
