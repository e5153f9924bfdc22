import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MetricsQueryable, queryEventMetrics, startRollupCompaction } from "../src/index.js";
import { openPglite, openPostgres, postgresAvailable, type TestDatabase } from "./support/databases.js";

// Under CI=true postgresAvailable() is true, so an unreachable PostgreSQL fails this file instead of skipping.
const backends: [string, () => Promise<TestDatabase>][] = [
  ["PGlite", openPglite],
  ...((await postgresAvailable()) ? [["PostgreSQL", openPostgres] as [string, () => Promise<TestDatabase>]] : []),
];

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(backends)("startRollupCompaction on %s", (_name, open) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await open();
  });
  afterAll(() => db?.close());

  async function pending(): Promise<number> {
    const { rows } = await db.query<{ n: number }>("select count(*)::int as n from metrics_deltas_telemetry_events");
    return rows[0]?.n ?? -1;
  }

  it("folds what writers append on its timer, and stops cleanly", async () => {
    const workspaceId = randomUUID();
    await db.query(
      `insert into telemetry_events (workspace_id, event_type, occurred_at)
       select $1, 'robot.moved', timestamptz '2026-03-01T00:00:00Z' + g * interval '17 minutes' from generate_series(1, 500) g`,
      [workspaceId],
    );
    expect(await pending()).toBeGreaterThan(0);
    const compaction = startRollupCompaction(db, { intervalMs: 20 });
    try {
      await until(async () => (await pending()) === 0);
      const body = await queryEventMetrics(db, workspaceId, { start: null, end: null });
      expect(body.telemetry.total).toBe(500);
    } finally {
      await compaction.stop();
    }
  });

  it("reports a failed fold and keeps going", async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const failing: MetricsQueryable = {
      query: async () => {
        calls += 1;
        throw new Error("database unavailable");
      },
    };
    const compaction = startRollupCompaction(failing, {
      intervalMs: 10,
      onError: (error) => {
        errors.push(error);
        throw new Error("a logger that fails"); // must not stop the timer
      },
    });
    try {
      await until(async () => calls >= 3);
    } finally {
      await compaction.stop();
    }
    expect(errors.length).toBeGreaterThanOrEqual(2);
    expect(errors[0]).toMatchObject({ message: "database unavailable" });
  });
});
