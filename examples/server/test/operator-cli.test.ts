import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EnvironmentListing, MemberListing, WorkspaceListing } from "../src/admin/workspace-operations.ts";
import { serverProcessPerSuite } from "./support/process-suite.ts";
import { envelope, post, readFrames, startParams } from "./support/rpc.ts";
import { createPgliteStore, runCli } from "./support/server-process.ts";

/** Runs the CLI and reads its stdout as JSON lines; fails the test (with stderr) on another exit code. */
async function cliJson<T>(args: string[], env: Record<string, string>, code: number = EXIT_CODES.ok): Promise<T[]> {
  const run = await runCli(args, env);
  expect(run.code, `${args.join(" ")}: ${run.stderr}`).toBe(code);
  return run.stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as T);
}

// `seed` made one demo workspace and nothing more: an operator could not create a second workspace,
// another Environment or its robots, a member, or change who may read a workspace.
describe("the operator's CLI with a running embedded server (through its control socket)", () => {
  const suite = serverProcessPerSuite(createPgliteStore, { env: { ROBOT_STEP_MS: "1" } });
  const env = () => suite.store.env;

  // One operator's session in three steps, in order (each spawns several CLI processes: one budget each).
  it("creates a workspace, an Environment with robots, and makes it the default", async () => {
    const [workspace] = await cliJson<WorkspaceListing>(
      ["workspace", "create", "acme", "--visibility", "public"],
      env(),
    );
    expect(workspace).toMatchObject({ slug: "acme", name: "acme", visibility: "public", defaultEnvironment: null });

    const [environment] = await cliJson<EnvironmentListing>(
      ["environment", "create", "--workspace", "acme", "berlin-01", "--robots", "2", "--name", "Berlin"],
      env(),
    );
    expect(environment).toMatchObject({
      workspace: "acme",
      storeId: "berlin-01",
      name: "Berlin",
      robots: 2,
      default: false,
    });

    const [chosen] = await cliJson<EnvironmentListing>(
      ["environment", "default", "--workspace", "acme", "berlin-01"],
      env(),
    );
    expect(chosen).toMatchObject({ storeId: "berlin-01", default: true });
  });

  it("adds a member, lists what was made and hides the workspace", async () => {
    const [member] = await cliJson<MemberListing>(
      ["member", "add", "--workspace", "acme", "ops@acme.example", "--role", "admin"],
      env(),
    );
    expect(member).toMatchObject({ workspace: "acme", user: "ops@acme.example", role: "admin", status: "active" });

    const workspaces = await cliJson<WorkspaceListing>(["workspace", "list"], env());
    expect(workspaces.map((w) => [w.slug, w.defaultEnvironment])).toEqual([
      ["demo", null],
      ["acme", "berlin-01"],
    ]);
    expect(await cliJson<EnvironmentListing>(["environment", "list", "--workspace", "acme"], env())).toHaveLength(1);
    expect(await cliJson<MemberListing>(["member", "list", "--workspace", "acme"], env())).toEqual([member]);
    const [hidden] = await cliJson<WorkspaceListing>(["workspace", "visibility", "acme", "private"], env());
    expect(hidden?.visibility).toBe("private");
  });

  it("makes the new workspace a real tenant: its token starts a task on the new Environment's robots", async () => {
    const token = (await runCli(["token", "create", "--workspace", "acme", "--kind", "partner"], env())).stdout.trim();
    const frames = await readFrames(
      await post(
        suite.server.a2aUrl,
        envelope("SendStreamingMessage", startParams("Restock", undefined, "berlin-01")),
        token,
      ),
    );
    expect(frames.at(-1)?.result.status.state).toBe("completed");
  });

  it.each([
    [["workspace", "create", "acme"], /already exists/],
    [["workspace", "create", "Not A Slug"], /workspace slug is/],
    [["workspace", "create", "x", "--visibility", "secret"], /public or private/],
    [["environment", "create", "--workspace", "demo", "store-001"], /already has an Environment/],
    [["environment", "create", "--workspace", "demo", "s-2", "--robots", "many"], /--robots must be/],
    [["member", "add", "--workspace", "demo", "not-an-email"], /not an email/],
    [["member", "list"], /needs --workspace/],
    [["workspace"], /workspace needs create, list or visibility/],
    [["environment", "list", "--colour"], /Unknown option/],
  ])("refuses %j with exit 2 and says why", async (args, message) => {
    const run = await runCli(args, env());
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT_CODES.usage, stdout: "" });
    expect(run.stderr).toMatch(message);
  });

  // The command line was fine; what it names does not exist: a failure (1), not a usage error (2).
  it.each([
    [["environment", "create", "--workspace", "nope", "s-1"], /no workspace with slug "nope"/],
    [["environment", "default", "--workspace", "demo", "no-such-store"], /has no Environment "no-such-store"/],
    [["token", "list", "--workspace", "nope"], /no workspace with slug "nope"/],
    [["token", "revoke", "zzzzzzzz"], /no live token whose id or hash starts with zzzzzzzz/],
    [["token", "revoke", "ffffffff"], /no live token whose id or hash starts with ffffffff/],
  ])("answers %j with exit 1 and says what is missing", async (args, message) => {
    const run = await runCli(args, env());
    expect({ code: run.code, stdout: run.stdout }).toEqual({ code: EXIT_CODES.failure, stdout: "" });
    expect(run.stderr).toMatch(message);
  });

  it("gives a new Environment three robots unless told, so a task there runs", async () => {
    const [environment] = await cliJson<EnvironmentListing>(
      ["environment", "create", "--workspace", "acme", "hamburg-01"],
      env(),
    );
    expect(environment).toMatchObject({ storeId: "hamburg-01", robots: 3 });
    const [none] = await cliJson<EnvironmentListing>(
      ["environment", "create", "--workspace", "acme", "empty-01", "--robots", "0"],
      env(),
    );
    expect(none).toMatchObject({ storeId: "empty-01", robots: 0 });
  });
});

describe("the operator's CLI on a store no server holds", () => {
  // One store for the steps below, in order: each CLI process opens the embedded store itself (seconds
  // each), so each step has a budget of its own. An empty one: the first command migrates it.
  let store: Awaited<ReturnType<typeof createPgliteStore>>;
  beforeAll(async () => {
    store = await createPgliteStore({ migrated: false });
  });
  afterAll(() => store.drop());

  it("opens the store itself, brings its schema up to date, and prints the same JSON", async () => {
    const [workspace] = await cliJson<WorkspaceListing>(["workspace", "create", "north"], store.env);
    expect(workspace).toMatchObject({ slug: "north", visibility: "private" });
  });

  it("creates an Environment there and makes it the default", async () => {
    await cliJson(["environment", "create", "--workspace", "north", "n-1", "--robots", "1"], store.env);
    const [chosen] = await cliJson<EnvironmentListing>(
      ["environment", "default", "--workspace", "north", "n-1"],
      store.env,
    );
    expect(chosen).toMatchObject({ storeId: "n-1", robots: 1, default: true });
  });

  it("fails on a workspace the store does not have", async () => {
    await cliJson(["member", "list", "--workspace", "south"], store.env, EXIT_CODES.failure);
  });

  it("lists the commands in --help", async () => {
    const help = await runCli(["--help"], {});
    for (const command of [
      "workspace create <slug>",
      "workspace list",
      "workspace visibility",
      "environment create --workspace <slug> <storeId>",
      "environment list",
      "environment default --workspace <slug> <storeId>",
      "member add --workspace <slug> <email>",
      "member list --workspace <slug>",
    ]) {
      expect(help.stdout).toContain(command);
    }
  });
});
