import { EXIT_CODES } from "@a2a-partner/a2a-core/node-runtime";
import { describe, expect, it } from "vitest";
import { postgresAvailable } from "./support/backends.ts";
import { serverProcessPerSuite } from "./support/process-suite.ts";
import { envelope, post } from "./support/rpc.ts";
import { createPostgresStore, runCli, seedWithCli } from "./support/server-process.ts";

// PostgreSQL, so the test can change rows (deactivate a membership, age a token) while a real server runs.
describe.skipIf(!(await postgresAvailable()))("token expiry and membership activation (real processes)", () => {
  const suite = serverProcessPerSuite(createPostgresStore);

  const a2aStatus = async (token: string) =>
    (await post(suite.server.a2aUrl, envelope("GetTask", { id: "x" }), token)).status;
  const metricsStatus = async (token: string) =>
    (await fetch(`${suite.server.url}/api/v1/metrics/events/demo`, { headers: { authorization: `Bearer ${token}` } }))
      .status;
  const membership = async (email: string) =>
    (
      await suite.store.pool.query<{ status: string }>(
        `select m.status from memberships m join users u on u.id = m.user_id join workspaces w on w.id = m.workspace_id
          where u.email = $1 and w.slug = 'demo'`,
        [email],
      )
    ).rows[0]?.status;

  async function create(args: string[]) {
    const run = await runCli(["token", "create", "--workspace", "demo", ...args], suite.store.env);
    const id = /created token ([0-9a-f-]{36})/.exec(run.stderr)?.[1];
    return { ...run, token: run.stdout.trim(), id };
  }

  it("refuses a token with --expires-in once it has expired, with 401 like a revoked one", async () => {
    const created = await create(["--kind", "partner", "--expires-in", "30d"]);
    expect(created.code).toBe(EXIT_CODES.ok);
    const expires = /expires (\S+) /.exec(created.stderr)?.[1] as string;
    expect(Math.abs(Date.parse(expires) - (Date.now() + 30 * 86_400_000))).toBeLessThan(60_000);
    expect(await a2aStatus(created.token)).toBe(200);

    // Aged by a statement: the server remembers the token, and forgets it when the change's notification
    // reaches it (milliseconds; its own backstop would take a minute).
    await suite.store.pool.query("update api_tokens set expires_at = now() - interval '1 second' where id = $1", [
      created.id,
    ]);
    await expect.poll(() => a2aStatus(created.token), { timeout: 5_000, interval: 20 }).toBe(401);
    const res = await post(suite.server.a2aUrl, envelope("GetTask", { id: "x" }), created.token);
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);

    const listed = await runCli(["token", "list"], suite.store.env);
    expect(listed.stdout).toContain(`"id":"${created.id}"`);
  });

  it("expires a token on its own, with no one touching it", async () => {
    const created = await create(["--kind", "partner", "--expires-in", "2s"]);
    expect(await a2aStatus(created.token)).toBe(200);
    await new Promise((r) => setTimeout(r, 2500));
    expect(await a2aStatus(created.token)).toBe(401);
  });

  it("refuses an expired user token on the metrics endpoint too", async () => {
    const created = await create(["--kind", "user", "--user", "short@example.com", "--expires-in", "1h"]);
    expect(await metricsStatus(created.token)).toBe(200);
    await suite.store.pool.query("update api_tokens set expires_at = now() - interval '1 second' where id = $1", [
      created.id,
    ]);
    expect(await metricsStatus(created.token)).toBe(401);
  });

  it("refuses a malformed --expires-in instead of creating a token that never expires", async () => {
    for (const value of ["30", "1y", "0d", "forever"]) {
      const created = await create(["--kind", "partner", "--expires-in", value]);
      expect(created.code).toBe(EXIT_CODES.usage);
      expect(created.stderr).toMatch(/--expires-in must be/);
      expect(created.stdout).toBe("");
    }
  });

  it("leaves an inactive membership inactive unless --activate is passed", async () => {
    const email = "paused@example.com";
    const first = await create(["--kind", "user", "--user", email]);
    expect(first.code).toBe(EXIT_CODES.ok);
    expect(await membership(email)).toBe("active"); // a new member is active at once
    await suite.store.pool.query(
      "update memberships set status = 'inactive' where user_id = (select id from users where email = $1)",
      [email],
    );
    const tokensBefore = (await suite.store.pool.query("select count(*)::int as n from api_tokens")).rows[0].n;

    const refused = await create(["--kind", "user", "--user", email]);
    expect(refused.code).toBe(EXIT_CODES.usage);
    expect(refused.stderr).toMatch(/membership of "demo" is inactive.*--activate/);
    expect(refused.stdout).toBe("");
    expect(await membership(email)).toBe("inactive");
    expect((await suite.store.pool.query("select count(*)::int as n from api_tokens")).rows[0].n).toBe(tokensBefore);
    expect(await metricsStatus(first.token)).toBe(404);

    const activated = await create(["--kind", "user", "--user", email, "--activate"]);
    expect(activated.code).toBe(EXIT_CODES.ok);
    expect(await membership(email)).toBe("active");
    expect(await metricsStatus(activated.token)).toBe(200);
  });

  it("seeding again leaves the demo user's inactive membership inactive", async () => {
    await suite.store.pool.query(
      "update memberships set status = 'inactive' where user_id = (select id from users where email = 'demo@example.com')",
    );
    const seeded = await seedWithCli(suite.store.env);
    expect(await membership("demo@example.com")).toBe("inactive");
    expect(await metricsStatus(seeded.userToken)).toBe(404);
  });
});
