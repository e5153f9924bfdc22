import { spawn, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { describe, expect, it } from "vitest";
import { pgliteStorePerTest, runCli } from "./support/server-process.ts";

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));

/** `unshare` works here: each server can be PID 1 of a PID namespace of its own (Linux, as root). */
const canUnshare =
  process.platform === "linux" &&
  spawnSync("unshare", ["--pid", "--fork", "--mount-proc", "true"], { stdio: "ignore" }).status === 0;

interface Outcome {
  listening: boolean;
  /** Settles with the exit code once the process has exited. */
  exited: Promise<number | null>;
  stop(): void;
  log(): string;
}

/** `serve` as PID 1 of a new PID namespace; resolves once it listens or exits, whichever comes first. */
function serveInOwnPidNamespace(env: Record<string, string>): Promise<Outcome> {
  const child = spawn(
    "unshare",
    ["--pid", "--fork", "--mount-proc", "--kill-child", process.execPath, "src/cli.ts", "serve"],
    {
      cwd: SERVER_DIR,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: "0", LOG_LEVEL: "info", ...env },
      stdio: ["ignore", "ignore", "pipe"],
    },
  );
  let stderr = "";
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return new Promise((resolve) => {
    const outcome = (listening: boolean): Outcome => ({
      listening,
      exited,
      // unshare ignores SIGTERM while it waits: the server (its child, PID 1 inside) is signalled itself.
      stop: () => {
        const server = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim());
        if (server > 0) process.kill(server, "SIGTERM");
      },
      log: () => stderr,
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      if (stderr.includes('"reference server listening"')) resolve(outcome(true));
    });
    void exited.then(() => resolve(outcome(false)));
  });
}

// Two containers on one volume (a rolling update, a one-off `docker run … cli` beside the server): each
// server is PID 1 in its own PID namespace. The old pid-based lock read the other's lock as its own or as
// stale, removed it, and both opened the same PGlite directory.
describe("the embedded data directory across PID namespaces", () => {
  const freshStore = pgliteStorePerTest();

  it.skipIf(!canUnshare)(
    "of two servers that are each PID 1, exactly one runs; the directory opens afterwards",
    async () => {
      const store = await freshStore();
      const outcomes = await Promise.all([serveInOwnPidNamespace(store.env), serveInOwnPidNamespace(store.env)]);
      try {
        const running = outcomes.filter((o) => o.listening);
        const refused = outcomes.filter((o) => !o.listening);
        expect(running, outcomes.map((o) => o.log()).join("\n")).toHaveLength(1);
        expect(await refused[0]?.exited).toBe(EXIT_CODES.dataDirectoryInUse);
        expect(refused[0]?.log()).toMatch(/in use by server \(pid 1 /);
      } finally {
        for (const o of outcomes.filter((o) => o.listening)) o.stop();
        await Promise.all(outcomes.map((o) => o.exited));
      }
      // The server let go of the directory on its way out: a CLI command opens it.
      const migrate = await runCli(["migrate"], store.env);
      expect(migrate.code, migrate.stderr).toBe(EXIT_CODES.ok);
    },
    120_000,
  );
});
