import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { queryEventMetrics } from "../src/index.js";
import { openPostgres, POSTGRES_URL, type PostgresTestDatabase, postgresReachable } from "./helpers/databases.js";
import { emptyDataset, insertDataset } from "./helpers/dataset.js";
import { defineMetricsSuite } from "./helpers/metrics-suite.js";

// Under CI the suite always runs, so an unreachable PostgreSQL fails it instead of skipping it quietly.
const runs = process.env.CI === "true" || (await postgresReachable());
if (!runs) console.warn(`PostgreSQL at ${POSTGRES_URL} is unreachable: skipping the PostgreSQL metrics suite`);

describe.runIf(runs)("metrics on PostgreSQL", () => {
  defineMetricsSuite(openPostgres);

  describe("concurrent writers", () => {
    let db: PostgresTestDatabase;
    beforeAll(async () => {
      db = await openPostgres();
    });
    afterAll(async () => {
      await db?.close();
    });

    // Every statement applies its deltas in one key order (hourly rows, then daily rows), so concurrent
    // single-statement writers never deadlock on rollup rows. (Transactions that run several statements
    // over the same keys in different orders can, as with any counter table: PostgreSQL aborts one.)
    it("keep rollups exact under concurrent bulk inserts, deletes, moves and rollbacks", async () => {
      const ds = emptyDataset();
      await insertDataset(db, ds);
      const clients = await Promise.all(
        Array.from({ length: 4 }, async () => {
          const client = new pg.Client(db.clientOptions());
          await client.connect();
          return client;
        }),
      );
      try {
        await Promise.all(
          clients.map(async (client, c) => {
            for (let round = 0; round < 15; round += 1) {
              const shift = c * 31 + round;
              // Overlapping hours and keys across writers, in different orders within each statement.
              await client.query(
                `insert into telemetry_events (workspace_id, event_type, occurred_at)
                 select $1, 'type-' || ((g + $2) % 5),
                        timestamptz '2026-01-01T00:00:00Z' + ((g * 7 + $2) % 72) * interval '1 hour'
                                                           + (g % 60) * interval '1 minute'
                 from generate_series(1, 200) g`,
                [ds.workspaceId, shift],
              );
              await client.query(
                `delete from telemetry_events where id in (
                   select id from telemetry_events where workspace_id = $1 and event_type = $2
                   order by id desc limit 30)`,
                [ds.workspaceId, `type-${shift % 5}`],
              );
              await client.query(
                `update telemetry_events set occurred_at = occurred_at + interval '13 hours', event_type = 'moved'
                 where id in (select id from telemetry_events where workspace_id = $1 and id % 17 = $2 limit 20)`,
                [ds.workspaceId, shift % 17],
              );
              if (round % 5 === 4) {
                // Rolled back: neither the raw rows nor the rollup changes remain.
                await client.query("begin");
                await client.query(
                  "insert into telemetry_events (workspace_id, event_type, occurred_at) select $1, 'ghost', now() from generate_series(1, 50)",
                  [ds.workspaceId],
                );
                await client.query("rollback");
              }
            }
          }),
        );
      } finally {
        await Promise.all(clients.map((client) => client.end()));
      }
      // Daily and hourly rollups both equal a fresh GROUP BY over the raw rows.
      for (const [table, bucket, rawBucket] of [
        ["metrics_daily_telemetry_events", "day::text", "((occurred_at at time zone 'UTC')::date)::text"],
        ["metrics_hourly_telemetry_events", "hour::text", "date_trunc('hour', occurred_at at time zone 'UTC')::text"],
      ]) {
        const { rows } = await db.query<{ rollup: string; raw: string }>(
          `select
             (select coalesce(jsonb_object_agg(k, n), '{}')::text from (
                select ${bucket} || ' ' || event_type as k, count as n
                from ${table} where workspace_id = $1) r) as rollup,
             (select coalesce(jsonb_object_agg(k, n), '{}')::text from (
                select ${rawBucket} || ' ' || event_type as k, count(*) as n
                from telemetry_events where workspace_id = $1 group by 1) r) as raw`,
          [ds.workspaceId],
        );
        expect(rows[0]?.rollup).not.toBe("{}");
        expect(rows[0]?.rollup).toBe(rows[0]?.raw);
      }
      const body = await queryEventMetrics(db, ds.workspaceId, {
        start: new Date("2026-01-01T05:20:00Z"),
        end: new Date("2026-01-03T19:40:00Z"),
      });
      const { rows: count } = await db.query<{ n: string }>(
        `select count(*)::text as n from telemetry_events
         where workspace_id = $1 and occurred_at >= '2026-01-01T05:20:00Z' and occurred_at < '2026-01-03T19:40:00Z'`,
        [ds.workspaceId],
      );
      expect(body.telemetry.total).toBe(Number(count[0]?.n));
    });
  });
});
