import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { describe, expect, it } from "vitest";
import type { PushSecretResult } from "../src/admin/push-secret-operations.ts";
import { postgresAvailable } from "./support/backends.ts";
import { serverProcessPerSuite, storePerSuite } from "./support/process-suite.ts";
import { createPgliteStore, createPostgresStore, runCli } from "./support/server-process.ts";

const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
const HOUR_MS = 3_600_000;

/** `pnpm cli push-secret …`: its one JSON line, and its stderr (which must never hold a secret). */
async function pushSecret(args: string[], env: Record<string, string>) {
  const run = await runCli(["push-secret", ...args], env);
  expect(run.code, `push-secret ${args.join(" ")}: ${run.stderr}`).toBe(EXIT_CODES.ok);
  const lines = run.stdout.split("\n").filter((line) => line !== "");
  expect(lines).toHaveLength(1);
  return { result: JSON.parse(lines[0] as string) as PushSecretResult, stderr: run.stderr };
}

/** Near `expectedMs` from now: the CLI and the database share this machine's clock. */
function expectAbout(iso: string, expectedMs: number) {
  expect(Math.abs(Date.parse(iso) - (Date.now() + expectedMs))).toBeLessThan(60_000);
}

describe("pnpm cli push-secret with a running embedded server (through its control socket)", () => {
  // At trace, the server would log anything the command put in a log line.
  const suite = serverProcessPerSuite(createPgliteStore, { env: { LOG_LEVEL: "trace" } });
  const env = () => ({ ...suite.store.env, LOG_LEVEL: "trace" });
  const printed: string[] = [];

  it("creates the workspace's secret once, then prints the same one", async () => {
    const first = await pushSecret(["--workspace", "demo"], env());
    expect(first.result).toMatchObject({ workspace: "demo", new: true, retiring: [] });
    expect(first.result.secret).toMatch(SECRET);
    expectAbout(first.result.created, 0);
    const again = await pushSecret(["--workspace", "demo"], env());
    expect(again.result).toEqual({ ...first.result, new: false });
    printed.push(first.result.secret);
  });

  it("rotates: a new secret, and the old one keeps signing until the grace ends (24 h unless told)", async () => {
    const old = (await pushSecret(["--workspace", "demo"], env())).result;
    const rotated = (await pushSecret(["--workspace", "demo", "--rotate"], env())).result;
    expect(rotated.secret).toMatch(SECRET);
    expect(rotated.secret).not.toBe(old.secret);
    expect(rotated.new).toBe(true);
    expect(rotated.retiring).toHaveLength(1);
    expect(rotated.retiring[0]?.created).toBe(old.created);
    expectAbout(rotated.retiring[0]?.retiresAt as string, 24 * HOUR_MS);
    // Printing it again shows the new one as current, the old one still retiring.
    expect((await pushSecret(["--workspace", "demo"], env())).result).toEqual({ ...rotated, new: false });

    const short = (await pushSecret(["--workspace", "demo", "--rotate", "--grace", "2h"], env())).result;
    expect(short.retiring.map((r) => r.created)).toEqual([rotated.created, old.created]);
    expectAbout(short.retiring[0]?.retiresAt as string, 2 * HOUR_MS);
    // A grace of 0 stops the replaced secret at once (a secret that leaked); older ones keep their time.
    const leaked = (await pushSecret(["--workspace", "demo", "--rotate", "--grace", "0"], env())).result;
    expect(leaked.retiring.map((r) => r.created)).toEqual([rotated.created, old.created]);
    printed.push(old.secret, rotated.secret, short.secret, leaked.secret);
  });

  it("retires every old secret at once with --retire-old, keeping the current one", async () => {
    const before = (await pushSecret(["--workspace", "demo", "--rotate"], env())).result;
    expect(before.retiring.length).toBeGreaterThanOrEqual(2);
    const retired = (await pushSecret(["--workspace", "demo", "--retire-old"], env())).result;
    expect(retired).toEqual({ ...before, new: false, retiring: [] });
    expect((await pushSecret(["--workspace", "demo"], env())).result.retiring).toEqual([]);
    // With --rotate: a new secret, and none of the old ones signs any more (every old one leaked).
    const fresh = (await pushSecret(["--workspace", "demo", "--rotate", "--retire-old"], env())).result;
    expect(fresh.secret).not.toBe(before.secret);
    expect(fresh.retiring).toEqual([]);
    printed.push(before.secret, fresh.secret);
  });

  it("answers a workspace that does not exist with exit 1 (the command line was fine)", async () => {
    const run = await runCli(["push-secret", "--workspace", "nope"], env());
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT_CODES.failure, stdout: "" });
    expect(run.stderr).toMatch(/no workspace with slug "nope"/);
  });

  it.each([
    [[], /--workspace is missing/],
    [["--workspace", "demo", "--grace", "1h"], /--grace goes with --rotate/],
    [["--workspace", "demo", "--rotate", "--grace", "forever"], /--grace must be a number and a unit/],
    [["--workspace", "demo", "show"], /push-secret takes only options/],
    [["--workspace", "demo", "--colour"], /Unknown option/],
  ])("refuses push-secret %j with exit 2 and says why", async (args, message) => {
    const run = await runCli(["push-secret", ...args], env());
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT_CODES.usage, stdout: "" });
    expect(run.stderr).toMatch(message);
  });

  it("never writes a secret to the server's log or the CLI's stderr", async () => {
    const { result, stderr } = await pushSecret(["--workspace", "demo"], env());
    expect(printed.length).toBeGreaterThanOrEqual(5);
    expect(printed).toContain(result.secret);
    for (const secret of printed) {
      expect(suite.server.log()).not.toContain(secret);
      expect(stderr).not.toContain(secret);
      // Nor any part of it long enough to matter (a log that cut it would still leak most of it).
      expect(suite.server.log()).not.toContain(secret.slice(6, 26));
    }
  });

  it("is in --help", async () => {
    const help = await runCli(["--help"], {});
    expect(help.stdout).toContain("push-secret --workspace <slug> [--rotate [--grace <24h|…|0>]]");
  });
});

describe.skipIf(!(await postgresAvailable()))("pnpm cli push-secret on PostgreSQL (no server)", () => {
  const suite = storePerSuite(createPostgresStore);

  it("creates, prints again, and rotates with both secrets signing until the grace ends", async () => {
    const env = { ...suite.store.env, LOG_LEVEL: "trace" };
    const first = await pushSecret(["--workspace", "demo"], env);
    expect(first.result.new).toBe(true);
    expect((await pushSecret(["--workspace", "demo"], env)).result.secret).toBe(first.result.secret);
    const rotated = await pushSecret(["--workspace", "demo", "--rotate", "--grace", "3s"], env);

    const signing = async () =>
      (
        await suite.store.pool.query<{ secret: string }>(
          `select s.secret from push_signing_secrets s join workspaces w on w.id = s.workspace_id
            where w.slug = 'demo' and (s.retires_at is null or s.retires_at > now())
            order by s.retires_at is null desc, s.created_at desc`,
        )
      ).rows.map((row) => row.secret);
    expect(await signing()).toEqual([rotated.result.secret, first.result.secret]);
    await expect.poll(signing, { timeout: 10_000, interval: 250 }).toEqual([rotated.result.secret]);
    expect((await pushSecret(["--workspace", "demo"], env)).result.retiring).toEqual([]);
    for (const run of [first, rotated]) {
      expect(run.stderr).not.toContain(first.result.secret);
      expect(run.stderr).not.toContain(rotated.result.secret);
    }
  });
});
