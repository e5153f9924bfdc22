import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { trustedSocketExists } from "./trusted-socket.js";

const uid = process.getuid?.() ?? 0;

describe.skipIf(process.platform === "win32")("trustedSocketExists", () => {
  let root: string;
  let dir: string;
  let socket: string;
  let server: Server | undefined;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "trust-"));
    dir = join(root, "run");
    socket = join(dir, "control.sock");
    await mkdir(dir, { mode: 0o700 });
  });
  afterEach(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
    await rm(root, { recursive: true, force: true });
  });

  async function listen(): Promise<void> {
    const s = createServer();
    server = s;
    await new Promise<void>((resolve) => s.listen(socket, resolve));
  }

  it("is false when there is no socket (no server)", async () => {
    expect(await trustedSocketExists(socket, dir, uid)).toBe(false);
  });

  it("is true for this user's socket in this user's private directory", async () => {
    await listen();
    expect(await trustedSocketExists(socket, dir, uid)).toBe(true);
  });

  it("refuses a socket that belongs to another user", async () => {
    await listen();
    await expect(trustedSocketExists(socket, dir, uid + 1)).rejects.toThrow(/belongs to uid \d+, not to you/);
  });

  it("refuses a socket in a directory others can write to (they could have swapped it)", async () => {
    await listen();
    await chmod(dir, 0o777);
    await expect(trustedSocketExists(socket, dir, uid)).rejects.toThrow(/others can write to/);
  });

  it("refuses a file that is not a socket", async () => {
    await writeFile(socket, "");
    await expect(trustedSocketExists(socket, dir, uid)).rejects.toThrow(/not a socket/);
  });
});
