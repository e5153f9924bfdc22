import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { buildEventMetricsQueries, parseMetricsWindow } from "@a2a-partner/metrics-core";
import { type Replica, replicaAvailable, startReplica } from "@a2a-partner/test-support/replica";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { generateToken, hashToken } from "../src/auth/tokens.ts";
import { postgresAvailable } from "./support/backends.ts";
import { leaseTestBed } from "./support/lease-test-bed.ts";
import { rpc } from "./support/rpc.ts";
import { createPostgresStore, type ServerProcess } from "./support/server-process.ts";
import { type StatementTap, startStatementTap } from "./support/statement-tap.ts";

const WINDOW = "start_timestamp=2026-03-01&end_timestamp=2026-03-02";
const WAIT = { timeout: 10_000, interval: 100 };

async function psqlValue(url: string, sql: string): Promise<string> {
  const { stdout } = await promisify(execFile)("psql", [url, "-XAtq", "-c", sql]);
  return stdout.trim();
}

// A server with DATABASE_READ_URL on a real streaming replica (pg_basebackup, another port): the metrics
// endpoint (credential, access check, aggregation) reads there without a statement on the primary, a
// revocation holds at once however far the replica lags, and a replica that stops replaying never hides
// an ended task from GetTask. The server reaches the primary through a tap that records every statement.
describe.skipIf(!((await postgresAvailable()) && replicaAvailable()))("a server with a read replica", () => {
  const bed = leaseTestBed(createPostgresStore);
  let replica: Replica;
  let server: ServerProcess;
  let tap: StatementTap;

  beforeAll(async () => {
    replica = await startReplica(bed.store.url);
    const database = new URL(bed.store.url).pathname.slice(1);
    const primary = new URL(bed.store.url);
    tap = await startStatementTap({ host: primary.hostname, port: Number(primary.port || 5432) });
    server = await bed.serve({ DATABASE_URL: tap.proxied(bed.store.url), DATABASE_READ_URL: replica.url(database) });
  });
  afterAll(async () => {
    await server?.kill("SIGTERM");
    await tap?.close();
    await replica?.stop();
  });

  function metrics(token = bed.seeded.userToken): Promise<Response> {
    return fetch(`${server.url}/api/v1/metrics/events/${bed.seeded.workspace.slug}?${WINDOW}`, {
      headers: { authorization: `Bearer ${token}` },
    });
  }

  async function movedCount(): Promise<number> {
    const res = await metrics();
    expect(res.status).toBe(200);
    return (await res.json()).telemetry.total;
  }

  /** Statements of the metrics endpoint among those the primary executed: the token, the access check, the aggregation. */
  function metricsStatements(): string[] {
    const aggregation = buildEventMetricsQueries(
      bed.seeded.workspace.uuid,
      parseMetricsWindow(new URLSearchParams(WINDOW)),
    ).text;
    return tap.executed.filter((sql) => /from api_tokens|from workspaces w/.test(sql) || sql === aggregation);
  }

  it("answers the metrics endpoint without a statement on the primary", async () => {
    await replica.catchUp();
    // Once the instance listens for access changes (its start), the replica's answers are trusted.
    await vi.waitFor(async () => {
      tap.clear();
      await movedCount();
      expect(metricsStatements()).toEqual([]);
    }, WAIT);
    tap.clear();
    for (let i = 0; i < 20; i++) await movedCount();
    expect(metricsStatements()).toEqual([]);
  });

  it("refuses a revoked token at once while the replica stopped replaying, reading the primary meanwhile", async () => {
    const { rows } = await bed.store.pool.query("select user_id from api_tokens where kind = 'user' limit 1");
    const token = generateToken("user");
    await bed.store.pool.query(
      "insert into api_tokens (token_hash, kind, user_id, label) values ($1, 'user', $2, 'revoked')",
      [hashToken(token), rows[0].user_id],
    );
    await replica.catchUp();
    await vi.waitFor(async () => {
      tap.clear();
      expect((await metrics(token)).status).toBe(200);
      expect(metricsStatements()).toEqual([]);
    }, WAIT);
    await replica.pauseReplay();
    try {
      await bed.store.pool.query("update api_tokens set revoked_at = now() where label = 'revoked'");
      // Refused as soon as the instance hears the revocation's NOTIFY (milliseconds), and from then on …
      await vi.waitFor(async () => expect((await metrics(token)).status).toBe(401), { timeout: 2_000, interval: 20 });
      for (let i = 0; i < 5; i++) expect((await metrics(token)).status).toBe(401);
      // … though the replica still has it live.
      const onReplica = await psqlValue(
        replica.url(new URL(bed.store.url).pathname.slice(1)),
        "select count(*) from api_tokens where label = 'revoked' and revoked_at is null",
      );
      expect(onReplica).toBe("1");
      // The other token still works: its check went to the primary, which the tap saw.
      tap.clear();
      expect((await metrics()).status).toBe(200);
      expect(metricsStatements().some((sql) => sql.includes("from api_tokens"))).toBe(true);
    } finally {
      await replica.resumeReplay();
    }
    await replica.catchUp();
    await vi.waitFor(async () => {
      tap.clear();
      expect((await metrics()).status).toBe(200);
      expect(metricsStatements()).toEqual([]);
    }, WAIT);
    expect((await metrics(token)).status).toBe(401);
  });

  async function insertTelemetry(): Promise<void> {
    await bed.store.pool.query(
      "insert into telemetry_events (workspace_id, event_type, occurred_at) values ($1, 'robot.moved', '2026-03-01T12:00:00Z')",
      [bed.seeded.workspace.uuid],
    );
  }

  it("counts metrics on the replica: rows it has not replayed yet are not counted until it has", async () => {
    await insertTelemetry();
    await replica.catchUp();
    expect(await movedCount()).toBe(1);
    await replica.pauseReplay();
    try {
      await insertTelemetry();
      expect(await movedCount()).toBe(1); // the primary has 2: the answer came from the replica
    } finally {
      await replica.resumeReplay();
    }
    await replica.catchUp();
    expect(await movedCount()).toBe(2);
  });

  it("answers GetTask and ListTasks with a task that ended while the replica stopped replaying", async () => {
    await replica.pauseReplay();
    try {
      const stream = await bed.start(server, "Restock aisle 4");
      const taskId = (await stream.until((f) => f.event === "task")).result.id as string;
      await stream.done;
      const got = await rpc(server.a2aUrl, bed.token, "GetTask", { id: taskId });
      expect(got.body.result).toMatchObject({ id: taskId, status: { state: "completed" } });
      const listed = await rpc(server.a2aUrl, bed.token, "ListTasks", { pageSize: 50 });
      const found = listed.body.result.tasks.find((t: { id: string }) => t.id === taskId);
      expect(found?.status.state).toBe("completed");
    } finally {
      await replica.resumeReplay();
    }
  });

  // Last: it takes the seeded user's membership away (and gives it back).
  it("stops answering a workspace whose membership was removed while the replica stopped replaying", async () => {
    await replica.catchUp();
    await vi.waitFor(async () => expect((await metrics()).status).toBe(200), WAIT);
    await replica.pauseReplay();
    const removed = await bed.store.pool.query(
      "delete from memberships where workspace_id = $1 returning workspace_id, user_id, role, status",
      [bed.seeded.workspace.uuid],
    );
    try {
      expect(removed.rowCount).toBe(1);
      // 404 (not readable) once the instance heard of it, though the replica still has the membership.
      await vi.waitFor(async () => expect((await metrics()).status).toBe(404), { timeout: 2_000, interval: 20 });
      for (let i = 0; i < 5; i++) expect((await metrics()).status).toBe(404);
    } finally {
      const row = removed.rows[0];
      await bed.store.pool.query(
        "insert into memberships (workspace_id, user_id, role, status) values ($1, $2, $3, $4)",
        [row.workspace_id, row.user_id, row.role, row.status],
      );
      await replica.resumeReplay();
    }
    await replica.catchUp();
    expect((await metrics()).status).toBe(200);
  });
});
