import { queryEventMetrics } from "@a2a-partner/metrics-core";
import type { Database } from "@a2a-partner/postgres-store";
import { pino } from "pino";
import { beforeAll, describe, expect, it } from "vitest";
import { startRollupCompaction } from "../src/metrics/rollup-compaction.ts";
import { type Backend, postgresAvailable } from "./support/backends.ts";
import { databasePerSuite } from "./support/server-per-suite.ts";

// Under CI=true postgresAvailable() is true, so an unreachable PostgreSQL fails this file instead of skipping.
const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

async function pending(db: Database): Promise<number> {
  const { rows } = await db.query<{ n: number }>("select count(*)::int as n from metrics_deltas_telemetry_events");
  return rows[0]?.n ?? -1;
}

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe.each(backends)("the server's rollup compaction on %s", (backend) => {
  const suite = databasePerSuite(backend);
  let db: Database;
  let workspaceId: string;
  beforeAll(async () => {
    db = suite.database.db;
    const { rows } = await db.query<{ id: string }>(
      "insert into workspaces (slug, name, visibility) values ('fold', 'fold', 'private') returning id",
    );
    workspaceId = rows[0]?.id as string;
  });

  it("folds what writers append on its timer, and stops cleanly", async () => {
    await db.query(
      `insert into telemetry_events (workspace_id, event_type, occurred_at)
       select $1, 'robot.moved', timestamptz '2026-03-01T00:00:00Z' + g * interval '17 minutes' from generate_series(1, 500) g`,
      [workspaceId],
    );
    expect(await pending(db)).toBeGreaterThan(0);
    const compaction = startRollupCompaction(db, pino({ level: "silent" }), 20);
    try {
      await until(async () => (await pending(db)) === 0);
      const body = await queryEventMetrics(db, workspaceId, { start: null, end: null });
      expect(body.telemetry.total).toBe(500);
    } finally {
      await compaction.stop();
    }
  });

  it("logs a failed fold and keeps going", async () => {
    const warnings: unknown[] = [];
    const logger = pino({ level: "warn" }, { write: (line: string) => warnings.push(JSON.parse(line)) });
    let calls = 0;
    const failing = {
      ...db,
      query: async () => {
        calls += 1;
        throw new Error("database unavailable");
      },
    } as unknown as Database;
    const compaction = startRollupCompaction(failing, logger, 10);
    try {
      await until(async () => calls >= 3);
    } finally {
      await compaction.stop();
    }
    expect(warnings[0]).toMatchObject({
      msg: "metrics rollup compaction failed",
      err: { message: "database unavailable" },
    });
  });
});
