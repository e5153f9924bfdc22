import { createHash } from "node:crypto";
import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { describe, expect, it } from "vitest";
import type { TokenListing } from "../src/admin/token-operations.ts";
import { serverProcessPerSuite } from "./support/process-suite.ts";
import { envelope, post } from "./support/rpc.ts";
import { createPgliteStore, runCli, seedWithCli } from "./support/server-process.ts";

// The CLI against the embedded store while a server owns it: the commands go through the control socket.
describe("CLI with a running embedded server", () => {
  // Not seeded here: seeding while the server runs is one of the tests.
  const suite = serverProcessPerSuite(createPgliteStore, { seed: false, env: { ROBOT_STEP_MS: "1" } });

  const works = async (token: string) =>
    (await post(suite.server.a2aUrl, envelope("GetTask", { id: "x" }), token)).status === 200;

  async function createPartnerToken(): Promise<{ token: string; id: string }> {
    const created = await runCli(["token", "create", "--workspace", "demo", "--kind", "partner"], suite.store.env);
    expect(created.code).toBe(EXIT_CODES.ok);
    const token = created.stdout.trim();
    // The id is named on stderr, so an operator can revoke the token later without handling its value.
    const id = /created token ([0-9a-f-]{36})/.exec(created.stderr)?.[1] as string;
    expect(id).toBeDefined();
    expect(created.stderr).not.toContain(token);
    return { token, id };
  }

  async function list(): Promise<TokenListing[]> {
    const listed = await runCli(["token", "list"], suite.store.env);
    expect(listed.code).toBe(EXIT_CODES.ok);
    return listed.stdout
      .trim()
      .split("\n")
      .filter((line) => line !== "") // no tokens yet: no lines
      .map((line) => JSON.parse(line) as TokenListing);
  }

  it("seeds (JSON as the last line), creates tokens, and refuses a second server", async () => {
    const seeded = await seedWithCli(suite.store.env);
    expect(seeded).toMatchObject({ workspace: { slug: "demo" }, storeId: "store-001" });
    expect(seeded.partnerToken).toMatch(/^a2a_p_/);
    expect(seeded.userToken).toMatch(/^a2a_u_/);
    // Seeding again mints two more tokens and says the earlier ones stay valid (on stderr, off the JSON).
    const again = await runCli(["seed"], suite.store.env);
    expect(again.code).toBe(EXIT_CODES.ok);
    expect(again.stderr).toMatch(/tokens of earlier runs stay valid/);
    expect(await works(seeded.partnerToken)).toBe(true);

    const { token } = await createPartnerToken();
    expect(await works(token)).toBe(true);

    // A workspace that does not exist: a failure (1); the command line itself was fine.
    const unknown = await runCli(["token", "create", "--workspace", "nope", "--kind", "partner"], suite.store.env);
    expect(unknown.code).toBe(EXIT_CODES.failure);
    // Listing a mistyped workspace is refused too, not answered with nothing.
    const unknownList = await runCli(["token", "list", "--workspace", "nope"], suite.store.env);
    expect(unknownList.code).toBe(EXIT_CODES.failure);
    expect(unknownList.stderr).toContain('no workspace with slug "nope"');
    const demoList = await runCli(["token", "list", "--workspace", "demo"], suite.store.env);
    expect(demoList.code).toBe(EXIT_CODES.ok);
    expect(demoList.stdout).toContain('"workspace":"demo"');

    const second = await runCli(["serve"], { ...suite.store.env, PORT: "0" });
    expect(second.code).toBe(EXIT_CODES.dataDirectoryInUse);
    expect(second.stderr).toMatch(new RegExp(`is in use by server \\(pid ${suite.server.pid} `));
  });

  it("answers --help for every command without running it or reading the configuration", async () => {
    const before = await list();
    for (const args of [["seed", "--help"], ["migrate", "-h"], ["serve", "--help"], ["token", "--help"], ["help"]]) {
      // PORT=abc would stop any command that loads the configuration (exit 78).
      const answer = await runCli(args, { ...suite.store.env, PORT: "abc" });
      expect({ args, code: answer.code }).toEqual({ args, code: EXIT_CODES.ok });
      expect(answer.stdout).toContain("Usage: pnpm cli <command>");
    }
    expect(await list()).toEqual(before); // `seed --help` minted no tokens
    const extra = await runCli(["seed", "now"], suite.store.env);
    expect(extra.code).toBe(EXIT_CODES.usage);
    expect(extra.stderr).toContain("seed takes no arguments, got: now");
    const unknownOption = await runCli(["token", "create", "--workspace", "demo", "--bogus"], suite.store.env);
    expect(unknownOption.code).toBe(EXIT_CODES.usage);
    expect(unknownOption.stderr).toMatch(/Unknown option '--bogus'/);
  });

  it("lists tokens with id, kind, workspace, label, dates and hash prefix, never a token's value", async () => {
    const { token, id } = await createPartnerToken();
    const listed = await runCli(["token", "list", "--workspace", "demo"], suite.store.env);
    expect(listed.stdout).not.toMatch(/a2a_[pu]_/);
    const rows = listed.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as TokenListing);
    const row = rows.find((r) => r.id === id);
    expect(row).toMatchObject({ kind: "partner", workspace: "demo", label: "cli", revoked: null, expires: null });
    expect(row?.hash).toBe(createHash("sha256").update(token).digest("hex").slice(0, 12));
    expect(Date.parse(row?.created ?? "")).toBeGreaterThan(Date.now() - 60_000);
    // The workspace's partner tokens, and the user tokens of its members (seed's demo user among them).
    expect(rows.every((r) => r.workspace === "demo" || r.workspaces?.includes("demo"))).toBe(true);
    expect(rows.some((r) => r.kind === "user" && r.user === "demo@example.com")).toBe(true);
  });

  it("revokes by id: refused from the next request on, and listed as revoked", async () => {
    const { token, id } = await createPartnerToken();
    const revoked = await runCli(["token", "revoke", id], suite.store.env);
    expect(revoked.code).toBe(EXIT_CODES.ok);
    expect(await works(token)).toBe(false);
    expect((await post(suite.server.a2aUrl, envelope("GetTask", { id: "x" }), token)).status).toBe(401);
    expect((await list()).find((r) => r.id === id)?.revoked).not.toBeNull();

    // Nothing left to revoke: a failure (1), the command line itself was fine.
    const again = await runCli(["token", "revoke", id], suite.store.env);
    expect(again.code).toBe(EXIT_CODES.failure);
    expect(again.stderr).toMatch(/no live token/);
  });

  it("revokes by hash prefix, as `token list` shows it", async () => {
    const { token, id } = await createPartnerToken();
    const hash = (await list()).find((r) => r.id === id)?.hash as string;
    expect((await runCli(["token", "revoke", hash], suite.store.env)).code).toBe(EXIT_CODES.ok);
    expect(await works(token)).toBe(false);
  });

  it("revokes a token read from stdin, and refuses one on the command line without echoing it", async () => {
    const { token } = await createPartnerToken();
    const onArgv = await runCli(["token", "revoke", token], suite.store.env);
    expect(onArgv.code).toBe(EXIT_CODES.usage);
    expect(onArgv.stderr).toMatch(/not the token itself/);
    expect(onArgv.stderr + onArgv.stdout).not.toContain(token);
    expect(await works(token)).toBe(true);

    const piped = await runCli(["token", "revoke", "--stdin"], suite.store.env, { input: `${token}\n` });
    expect(piped.code).toBe(EXIT_CODES.ok);
    expect(piped.stderr + piped.stdout).not.toContain(token);
    expect(await works(token)).toBe(false);
  });

  it("refuses an ambiguous or malformed reference instead of guessing", async () => {
    const short = await runCli(["token", "revoke", "abc"], suite.store.env);
    expect(short.code).toBe(EXIT_CODES.usage);
    const none = await runCli(["token", "revoke", "ffffffffffffffff"], suite.store.env);
    expect(none.code).toBe(EXIT_CODES.failure);
    expect(none.stderr).toMatch(/no live token/);
  });
});
