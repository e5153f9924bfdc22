import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedMigratedDataDir } from "./support/migrated-template.ts";

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

/** A shell pipeline as a user types it; bash for $PIPESTATUS (the first command's exit code, not the reader's). */
async function pipeline(script: string, env: Record<string, string>, cwd = SERVER_DIR) {
  const run = promisify(execFile);
  const { stdout, stderr } = await run("bash", ["-c", script], {
    cwd,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", ...env },
    timeout: 120_000,
  });
  return { stdout, stderr };
}

describe("CLI output in a pipe", () => {
  let root = "";
  let env: Record<string, string> = {};
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "a2a-cli-pipes-"));
    const dataDir = join(root, "pglite");
    await seedMigratedDataDir(dataDir); // what these test is the output, not a first start's initdb
    env = { DATA_DIR: dataDir };
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it("`pnpm -s cli seed | jq -r .partnerToken` prints the token: stdout holds the JSON alone", async () => {
    const { stdout } = await pipeline("set -o pipefail; pnpm -s cli seed | jq -r .partnerToken", env, REPO_ROOT);
    expect(stdout.trim()).toMatch(/^a2a_p_[A-Za-z0-9_-]{43}$/);
  });

  it("a reader that closes the pipe early: the command ends quietly with its own exit code", async () => {
    // `true` exits before seed writes its line, so the write meets a closed pipe (EPIPE).
    const { stdout, stderr } = await pipeline('node src/cli.ts seed | true; echo "exit $PIPESTATUS"', env);
    // No "Unhandled 'error' event" and no stack trace: at most seed's own note (old tokens stay valid).
    expect(stderr.replace(/^seed: new tokens above;.*\n/m, "")).toBe("");
    expect(stdout.trim()).toBe(`exit ${EXIT_CODES.ok}`);
    // A failed command keeps its code even when nobody reads its output.
    const failed = await pipeline('node src/cli.ts token list --workspace nope | true; echo "exit $PIPESTATUS"', env);
    expect(failed.stdout.trim()).toBe(`exit ${EXIT_CODES.failure}`);
  });

  it("`<unknown command> --help` is an unknown command (exit 2), not the usage with exit 0", async () => {
    const { stdout, stderr } = await pipeline('node src/cli.ts tenant --help; echo "exit $?"', env);
    expect(stdout).toContain(`exit ${EXIT_CODES.usage}`);
    expect(stderr).toContain("Unknown command: tenant");
  });
});
