import { mkdtemp, rm } from "node:fs/promises";
import type { Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  controlSocketPaths,
  EXIT_CODES,
  NotFoundError,
  startControlSocket,
  UsageError,
} from "@a2a-partner/a2a-core/node-runtime";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Database } from "../database.js";
import { runStoreCommand, type StoreCommand } from "./store-command.js";

/** A command whose local run answers `run`, and whose printed results are kept. */
function command(run: () => Promise<string>) {
  const printed: string[] = [];
  const cmd: StoreCommand<string> = { name: "echo", request: { word: "hello" }, run, print: (r) => printed.push(r) };
  return { cmd, printed };
}

describe("runStoreCommand", () => {
  let base: string;
  let dataDir: string;
  let closed: number;
  let server: Server | undefined;
  const open = async () => ({ close: async () => void closed++ }) as unknown as Database;
  const stderr: string[] = [];

  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), "sc-"));
    dataDir = join(base, "data");
    closed = 0;
    stderr.length = 0;
    vi.spyOn(process.stderr, "write").mockImplementation((text) => stderr.push(String(text)) > 0);
  });

  afterEach(async () => {
    vi.restoreAllMocks();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    server = undefined;
    await rm(base, { recursive: true, force: true });
  });

  const options = () => ({ url: undefined, dataDir, open, serverOwner: "server" });

  it("runs here on a store it opens and closes when no server holds the data directory", async () => {
    const { cmd, printed } = command(async () => "ran here");
    expect(await runStoreCommand(cmd, options())).toBe(EXIT_CODES.ok);
    expect(printed).toEqual(["ran here"]);
    expect(closed).toBe(1);
  });

  it("runs in the server through its control socket when one answers", async () => {
    server = await startControlSocket(controlSocketPaths(dataDir), {
      commands: { echo: async (input) => `server got ${(input as { word: string }).word}` },
      statusOf: (error) => (error instanceof UsageError ? 400 : undefined),
      logger: { error: () => undefined },
    });
    const { cmd, printed } = command(async () => "ran here");
    expect(await runStoreCommand(cmd, options())).toBe(EXIT_CODES.ok);
    expect(printed).toEqual(["server got hello"]);
    expect(closed).toBe(0); // the store was never opened here
  });

  it("turns the server's refusal of a usage mistake into exit 2, with its message", async () => {
    server = await startControlSocket(controlSocketPaths(dataDir), {
      commands: {
        echo: async () => {
          throw new UsageError("no such flag");
        },
      },
      statusOf: (error) => (error instanceof UsageError ? 400 : undefined),
      logger: { error: () => undefined },
    });
    const { cmd, printed } = command(async () => "ran here");
    expect(await runStoreCommand(cmd, options())).toBe(EXIT_CODES.usage);
    expect(printed).toEqual([]);
    expect(stderr).toEqual(["no such flag\n"]);
  });

  it("with a DATABASE_URL always runs here; a usage mistake exits 2, something missing 1", async () => {
    const withUrl = { ...options(), url: "postgres://example.invalid/db" };
    const usage = command(async () => {
      throw new UsageError("bad workspace slug");
    });
    expect(await runStoreCommand(usage.cmd, withUrl)).toBe(EXIT_CODES.usage);
    const missing = command(async () => {
      throw new NotFoundError("no workspace acme");
    });
    expect(await runStoreCommand(missing.cmd, withUrl)).toBe(EXIT_CODES.failure);
    expect(stderr).toEqual(["bad workspace slug\n", "no workspace acme\n"]);
    expect(closed).toBe(2);
    const failing = command(async () => {
      throw new Error("connection lost");
    });
    await expect(runStoreCommand(failing.cmd, withUrl)).rejects.toThrow("connection lost");
    expect(closed).toBe(3);
  });
});
