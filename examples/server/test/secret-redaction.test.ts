import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { describe, expect, it } from "vitest";
import { postgresAvailable } from "./support/backends.ts";
import { createPostgresStore, runCli, startServerProcess, stopAllServerProcesses } from "./support/server-process.ts";

// A DATABASE_URL's password must never reach the server's output, at any log level, in any path: a
// refused setting, a database that cannot be reached, a server that runs. Checked on every spelling an
// operator may use (raw, percent-encoded, decoded), since each ends up in a different message.
const SECRET = "S3cr/t@x";
const onPostgres = await postgresAvailable();
const spellings = [SECRET, encodeURIComponent(SECRET), "S3cr"];

function expectNoSecret(output: string) {
  for (const spelling of spellings) expect(output).not.toContain(spelling);
}

describe("a DATABASE_URL password in the server's output", () => {
  it.each([
    ["unencoded / and @ (refused: no valid URL)", `postgres://postgres:${SECRET}@127.0.0.1:5432/test`],
    ["another scheme (refused)", `mysql://postgres:${SECRET}@127.0.0.1/test`],
  ])("is hidden when the setting is refused: %s", async (_what, url) => {
    for (const command of [["serve"], ["token", "list"]]) {
      const run = await runCli(command, { DATABASE_URL: url, LOG_LEVEL: "trace" });
      expect(run.code).toBe(EXIT_CODES.config);
      expect(run.stderr).toContain("postgres:***@");
      expectNoSecret(run.stdout + run.stderr);
    }
  });

  it("is never published: PUBLIC_URL with credentials is refused (the agent card would carry them)", async () => {
    const run = await runCli(["serve"], {
      PUBLIC_URL: `https://proxy:${encodeURIComponent(SECRET)}@robots.example.com`,
      LOG_LEVEL: "trace",
    });
    expect(run.code).toBe(EXIT_CODES.config);
    expect(run.stderr).toContain("PUBLIC_URL must not carry credentials");
    expectNoSecret(run.stdout + run.stderr);
  });

  it("is hidden when the database cannot be reached", async () => {
    const url = `postgres://postgres:${encodeURIComponent(SECRET)}@127.0.0.1:1/test?password=${encodeURIComponent(SECRET)}`;
    for (const command of [["serve"], ["migrate"]]) {
      const run = await runCli(command, { DATABASE_URL: url, LOG_LEVEL: "trace" });
      expect(run.code).not.toBe(EXIT_CODES.ok);
      expectNoSecret(run.stdout + run.stderr);
    }
  });

  it.skipIf(!onPostgres)("is hidden from every log line of a server that runs on it", async () => {
    const store = await createPostgresStore();
    try {
      const url = new URL(store.url);
      url.password = encodeURIComponent(SECRET); // trust auth here: PostgreSQL ignores it, the server must too
      const server = await startServerProcess({
        DATABASE_URL: url.toString(),
        LOG_LEVEL: "trace",
      });
      await fetch(`${server.url}/.well-known/agent-card.json`);
      await server.kill("SIGTERM");
      expect(server.log()).toContain("reference server listening");
      expectNoSecret(server.log());
    } finally {
      await stopAllServerProcesses();
      await store.drop();
    }
  });
});
