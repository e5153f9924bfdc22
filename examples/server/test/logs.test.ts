import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { serverProcessPerSuite } from "./support/process-suite.ts";
import { envelope, post } from "./support/rpc.ts";
import { createPgliteStore, eventually } from "./support/server-process.ts";

const SERVER_DIR = fileURLToPath(new URL("..", import.meta.url));

type Line = Record<string, unknown>;

describe("the server's log, as an operator reads it", () => {
  const suite = serverProcessPerSuite(createPgliteStore, { env: { LOG_LEVEL: "debug", ROBOT_STEP_MS: "1" } });
  const lines = (): Line[] =>
    suite.server
      .log()
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Line);

  it("is JSON lines with ISO-8601 times when stderr is not a terminal; the start says where the data is", () => {
    const all = lines();
    expect(all.length).toBeGreaterThan(0);
    for (const line of all) expect(line.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const listening = all.find((line) => line.msg === "reference server listening");
    expect(listening).toMatchObject({ store: "pglite", data: suite.store.env.DATA_DIR });
  });

  it("logs each refused credential with its reason, never the token", async () => {
    const secret = "a2a_p_not-a-real-token-but-a-secret-all-the-same";
    const a2a = suite.server.a2aUrl;
    expect((await post(a2a, envelope("GetTask", { id: "x" }), null)).status).toBe(401);
    expect((await post(a2a, envelope("GetTask", { id: "x" }), secret)).status).toBe(401);
    expect((await post(a2a, envelope("GetTask", { id: "x" }), suite.seeded.userToken)).status).toBe(403);
    const metrics = await fetch(`${suite.server.url}/api/v1/metrics/events/demo`, {
      headers: { authorization: `Bearer ${suite.seeded.partnerToken}` },
    });
    expect(metrics.status).toBe(403);
    const basic = await fetch(`${suite.server.url}/api/v1/metrics/events/demo`, {
      headers: { authorization: "Basic dXNlcjpwYXNz" },
    });
    expect(basic.status).toBe(401);

    const refusals = await eventually(
      async () => {
        const found = lines().filter((line) => line.msg === "authentication refused");
        return found.length >= 5 ? found : undefined;
      },
      { timeoutMs: 10_000, what: "five refusal lines" },
    );
    expect(refusals.map(({ endpoint, status, reason }) => ({ endpoint, status, reason }))).toEqual([
      { endpoint: "a2a", status: 401, reason: "no Authorization header" },
      { endpoint: "a2a", status: 401, reason: "unknown, revoked or expired token" },
      { endpoint: "a2a", status: 403, reason: "user token on the partner endpoint" },
      { endpoint: "metrics", status: 403, reason: "partner token on a user endpoint" },
      { endpoint: "metrics", status: 401, reason: "Authorization is not a Bearer token" },
    ]);
    const log = suite.server.log();
    for (const value of [secret, suite.seeded.userToken, suite.seeded.partnerToken, "dXNlcjpwYXNz"]) {
      expect(log).not.toContain(value);
    }
  });

  it("logs a line per request at debug: method, path without the query, status, duration", async () => {
    await fetch(`${suite.server.url}/healthz?probe=1`);
    const line = await eventually(async () => lines().find((l) => l.msg === "request" && l.path === "/healthz"), {
      timeoutMs: 10_000,
      what: "the request line",
    });
    expect(line).toMatchObject({ component: "http", method: "GET", status: 200 });
    expect(typeof line.ms).toBe("number");
  });
});

describe("the log format", () => {
  const logOneLine =
    'import { createPinoLogger } from "@a2a-partner/a2a-core/node-runtime"; ' +
    'createPinoLogger({ level: "info", service: "a2a-reference-server" }).info({ taskId: "t-1" }, "hello operator");';

  it("is pino-pretty's readable line when stderr is a terminal", async () => {
    // util-linux `script` runs the command on a pseudo-terminal and copies what it prints.
    const command = `node --input-type=module -e '${logOneLine}'`;
    const { stdout } = await promisify(execFile)("script", ["-q", "-e", "-c", command, "/dev/null"], {
      cwd: SERVER_DIR,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: "dumb" },
    });
    expect(stdout).toMatch(/\d\d:\d\d:\d\d\.\d{3}.*INFO.*hello operator.*"taskId":"t-1"/);
    expect(stdout).not.toContain('"msg"');
  });

  it("is JSON when stderr is not a terminal", async () => {
    const { stderr } = await promisify(execFile)("node", ["--input-type=module", "-e", logOneLine], {
      cwd: SERVER_DIR,
      env: { PATH: process.env.PATH, HOME: process.env.HOME },
    });
    expect(JSON.parse(stderr)).toMatchObject({ msg: "hello operator", taskId: "t-1", level: 30 });
  });
});
