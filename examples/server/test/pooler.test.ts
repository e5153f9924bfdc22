import { type PgBouncer, pgbouncerAvailable, startPgBouncer } from "@a2a-partner/test-support/pgbouncer";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postgresAvailable } from "./support/backends.ts";
import { LEASE_MS, leaseTestBed } from "./support/lease-test-bed.ts";
import { rpc } from "./support/rpc.ts";
import { createPostgresStore, deliveryLags, type ServerProcess, type TimedFrame } from "./support/server-process.ts";

// Two server processes whose every statement goes through a real PgBouncer in transaction mode
// (DATABASE_POOLER=transaction), LISTEN straight to PostgreSQL (DATABASE_LISTEN_URL). The pooler's
// sessions run in a zone far from UTC, so a statement leaning on the session's zone answers wrongly.
const ZONE = "Pacific/Kiritimati";
const POOL_SIZE = 6;

describe.skipIf(!((await postgresAvailable()) && pgbouncerAvailable()))("two servers behind PgBouncer", () => {
  const bed = leaseTestBed(createPostgresStore);
  let bouncer: PgBouncer;
  let pooledUrl: string;
  let a: ServerProcess;
  let b: ServerProcess;

  beforeAll(async () => {
    const database = new URL(bed.store.url).pathname.slice(1);
    bouncer = await startPgBouncer({
      databases: { pooled: `host=127.0.0.1 port=5432 dbname=${database} timezone=${ZONE}` },
      poolSize: POOL_SIZE,
    });
    pooledUrl = bouncer.url("pooled");
    const env = { DATABASE_URL: pooledUrl, DATABASE_LISTEN_URL: bed.store.url, DATABASE_POOLER: "transaction" };
    [a, b] = await Promise.all([bed.serve(env), bed.serve(env)]);
  });
  // Runs before the suite's own after-hook, which kills the servers and drops the database.
  afterAll(async () => {
    await Promise.all([a?.kill("SIGTERM"), b?.kill("SIGTERM")]);
    await bouncer?.stop();
  });

  it("streams a task started on A to a follower on B as it runs, never waiting for the 5 s re-read", async () => {
    const onA = await bed.start(a, "Restock aisle 7");
    const taskId = (await onA.until((f) => f.event === "task")).result.id as string;
    const onB = await bed.subscribe(b, taskId, "1");
    const [endA, endB] = await Promise.all([onA.done, onB.done]);
    expect(endA.error).toBeUndefined();
    expect(endB.error).toBeUndefined();
    expect(onB.frames.at(-2)?.result.status.state).toBe("completed");
    const events = (frames: TimedFrame[]) => frames.slice(1, -1).map((f) => [f.id, f.event]);
    expect(events(onB.frames)).toEqual(events(onA.frames).filter(([id]) => Number(id) > 1));
    const lags = deliveryLags(onA.frames, onB.frames);
    expect(lags.length).toBeGreaterThanOrEqual(2);
    expect(Math.max(...lags)).toBeLessThan(1_000);

    const polled = await rpc(b.a2aUrl, bed.token, "GetTask", { id: taskId });
    expect(polled.body.result).toMatchObject({ id: taskId, status: { state: "completed" } });
    const listed = await rpc(a.a2aUrl, bed.token, "ListTasks", { pageSize: 10 });
    expect(listed.body.result.tasks.map((t: { id: string }) => t.id)).toContain(taskId);
  });

  it("keeps PostgreSQL's connections to the pooler's pool plus the two LISTENs of each instance", async () => {
    const { rows } = await bed.store.pool.query<{ n: number }>(
      "select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
    );
    // The test's own pool (up to 3 connections) is direct too.
    expect(rows[0]?.n).toBeLessThanOrEqual(POOL_SIZE + 2 * 2 + 3);
  });

  it("buckets metrics by UTC day although the pooler's sessions run at UTC+14", async () => {
    const pooled = new pg.Pool({ connectionString: pooledUrl, max: 1 });
    try {
      const workspace = bed.seeded.workspace.uuid;
      // Written through the pooler too: the rollup triggers run in the +14 session.
      for (const at of ["2026-03-01T09:30:00Z", "2026-03-01T23:30:00Z", "2026-03-02T00:30:00Z"]) {
        await pooled.query("insert into telemetry_events (workspace_id, event_type, occurred_at) values ($1, $2, $3)", [
          workspace,
          "robot.moved",
          at,
        ]);
      }
    } finally {
      await pooled.end();
    }
    const res = await fetch(
      `${a.url}/api/v1/metrics/events/${bed.seeded.workspace.slug}?start_timestamp=2026-03-01&end_timestamp=2026-03-03`,
      { headers: { authorization: `Bearer ${bed.seeded.userToken}` } },
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.telemetry.by_day).toEqual([
      { day: "2026-03-01", event_type: "robot.moved", count: 2 },
      { day: "2026-03-02", event_type: "robot.moved", count: 1 },
    ]);
  });

  it("ends a task whose instance died, through the pooler (lease renewal and the orphan sweep)", async () => {
    const c = await bed.serve({
      DATABASE_URL: pooledUrl,
      DATABASE_LISTEN_URL: bed.store.url,
      DATABASE_POOLER: "transaction",
    });
    const onC = await bed.start(c, "Count inventory in aisle 9");
    const taskId = (await onC.until((f) => f.event === "task")).result.id as string;
    await c.kill("SIGKILL");
    const deadline = Date.now() + LEASE_MS * 8;
    let state = "";
    while (Date.now() < deadline) {
      state = (await rpc(a.a2aUrl, bed.token, "GetTask", { id: taskId })).body.result.status.state;
      if (state === "failed") break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(state).toBe("failed");
  });
});
