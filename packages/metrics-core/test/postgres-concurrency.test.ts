import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildRawEventMetricsQueries,
  compactMetricsRollups,
  type EventMetricsRow,
  type MetricsWindow,
  queryEventMetrics,
  shapeEventMetrics,
} from "../src/index.js";
import { openPostgres, POSTGRES_URL, type PostgresTestDatabase, postgresAvailable } from "./support/databases.js";
import { emptyDataset, insertDataset, pendingDeltas } from "./support/dataset.js";

// Several sessions at once: writers, compactions, truncates and readers, which PGlite (one connection)
// cannot have. Under CI the file always runs, so an unreachable PostgreSQL fails it instead of skipping.
const runs = await postgresAvailable();
if (!runs) console.warn(`PostgreSQL at ${POSTGRES_URL} is unreachable: skipping the metrics concurrency tests`);

const WINDOWS: MetricsWindow[] = [
  { start: new Date("2026-01-01T05:20:00Z"), end: new Date("2026-01-03T19:40:00Z") },
  { start: new Date("2026-01-02T00:00:00Z"), end: new Date("2026-01-03T00:00:00Z") },
  { start: null, end: null },
];

describe.runIf(runs)("metrics on PostgreSQL with concurrent sessions", () => {
  let db: PostgresTestDatabase;
  const clients: pg.Client[] = [];
  beforeAll(async () => {
    db = await openPostgres();
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.end().catch(() => {})));
    await db?.close();
  });

  /** Another session on this file's schema, closed after the file. */
  async function session(): Promise<pg.Client> {
    const client = new pg.Client(db.clientOptions());
    await client.connect();
    clients.push(client);
    return client;
  }

  /** The endpoint's answer and the raw GROUP BY, in one snapshot: they must agree at every moment. */
  async function answersInOneSnapshot(client: pg.Client, workspaceId: string, w: MetricsWindow) {
    await client.query("begin isolation level repeatable read");
    try {
      const fromRollups = await queryEventMetrics(client, workspaceId, w);
      const raw = buildRawEventMetricsQueries(workspaceId, w);
      const { rows } = await client.query<EventMetricsRow>(raw.text, raw.values);
      return { fromRollups, raw: shapeEventMetrics(workspaceId, w, rows) };
    } finally {
      await client.query("commit");
    }
  }

  /** Waits until `client`'s backend waits for a lock of the given type (e.g. "advisory"). */
  async function waitsForLock(client: pg.Client, lockType: string): Promise<void> {
    const pid = (client as unknown as { processID: number }).processID;
    for (let i = 0; i < 200; i++) {
      const { rows } = await db.query<{ waiting: boolean }>(
        "select exists (select 1 from pg_locks where pid = $1 and not granted and locktype = $2) as waiting",
        [pid, lockType],
      );
      if (rows[0]?.waiting) return;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    throw new Error(`session ${pid} never waited for a ${lockType} lock`);
  }

  // 0002's triggers upserted the same current-hour rollup rows in every writer's transaction, so a second
  // writer of that hour and key waited for the first to commit. Deltas are plain inserts.
  it("lets writers of the same hour and key run without waiting for each other's commit", async () => {
    const ds = emptyDataset(["pick"]);
    await insertDataset(db, ds);
    const [first, second] = [await session(), await session()];
    await second.query("set lock_timeout = '2s'");
    const insert = (client: pg.Client) =>
      client.query(
        `insert into telemetry_events (workspace_id, event_type, occurred_at)
         select $1, 'robot.moved', timestamptz '2026-01-01T10:15:00Z' + g * interval '1 second' from generate_series(1, 10) g`,
        [ds.workspaceId],
      );
    await first.query("begin");
    await insert(first);
    // With first's transaction still open: the same hour and key, a delete and a move of committed rows.
    await insert(second);
    await second.query(
      "delete from telemetry_events where id = (select min(id) from telemetry_events where workspace_id = $1)",
      [ds.workspaceId],
    );
    await second.query(
      "update telemetry_events set occurred_at = occurred_at + interval '1 day' where id = (select max(id) from telemetry_events where workspace_id = $1)",
      [ds.workspaceId],
    );
    expect(await compactMetricsRollups(second)).toBeGreaterThan(0);
    const during = await answersInOneSnapshot(second, ds.workspaceId, WINDOWS[0] as MetricsWindow);
    expect(during.fromRollups.telemetry.total).toBe(9);
    expect(during.fromRollups).toEqual(during.raw);
    await first.query("commit");
    const after = await answersInOneSnapshot(second, ds.workspaceId, WINDOWS[0] as MetricsWindow);
    expect(after.fromRollups.telemetry.total).toBe(19);
    expect(after.fromRollups).toEqual(after.raw);
  });

  it("skips a kind another session is compacting, without waiting, and stays exact meanwhile", async () => {
    const ds = emptyDataset();
    ds.alerts = [{ alertType: "a", at: "2026-01-02T10:00:00Z" }];
    await insertDataset(db, ds);
    const [folding, other] = [await session(), await session()];
    await folding.query("begin");
    expect(await compactMetricsRollups(folding)).toBeGreaterThan(0); // holds every kind's lock until commit
    await other.query(
      "insert into alerts (workspace_id, alert_type, occurred_at) values ($1, 'b', '2026-01-02T11:00:00Z')",
      [ds.workspaceId],
    );
    await other.query("set lock_timeout = '1s'");
    expect(await compactMetricsRollups(other)).toBe(0);
    for (const w of WINDOWS) {
      const { fromRollups, raw } = await answersInOneSnapshot(other, ds.workspaceId, w);
      expect(fromRollups).toEqual(raw);
      if (w.start === null) expect(fromRollups.alerts.total).toBe(2);
    }
    await folding.query("commit");
    expect(await compactMetricsRollups(other)).toBeGreaterThan(0);
    expect(await pendingDeltas(db)).toBe(0);
    const { fromRollups, raw } = await answersInOneSnapshot(other, ds.workspaceId, { start: null, end: null });
    expect(fromRollups.alerts.by_alert_type).toEqual({ a: 1, b: 1 });
    expect(fromRollups).toEqual(raw);
  });

  // Without the wait, the truncate's deletes would not see the rollup rows the compaction inserted but had
  // not committed yet, and those counts of truncated rows would survive it.
  it("makes a TRUNCATE wait for a compaction in flight, then empties what it folded", async () => {
    const ds = emptyDataset();
    await insertDataset(db, ds);
    const [folding, truncating] = [await session(), await session()];
    await folding.query("truncate alerts");
    await folding.query(
      "insert into alerts (workspace_id, alert_type, occurred_at) values ($1, 'new', '2026-01-05T10:00:00Z')",
      [ds.workspaceId],
    );
    await folding.query("begin");
    expect(await compactMetricsRollups(folding)).toBeGreaterThan(0);
    const truncated = truncating.query("truncate alerts");
    await waitsForLock(truncating, "advisory");
    await folding.query("commit");
    await truncated;
    const { rows } = await db.query<{ n: string }>(
      `select ((select count(*) from metrics_daily_alerts) + (select count(*) from metrics_hourly_alerts)
             + (select count(*) from metrics_deltas_alerts))::text as n`,
    );
    expect(rows).toEqual([{ n: "0" }]);
  });

  // Writers append deltas while compactions fold them and readers compare, in one snapshot each time, the
  // endpoint's answer with a raw count: exact at every moment, and the folded rollups exact at the end.
  it("stays exact under concurrent bulk inserts, deletes, moves, rollbacks, compactions and reads", async () => {
    const ds = emptyDataset();
    await insertDataset(db, ds);
    const writers = await Promise.all(Array.from({ length: 4 }, () => session()));
    const compactors = await Promise.all(Array.from({ length: 2 }, () => session()));
    const reader = await session();
    let writing = true;
    let folds = 0;
    let reads = 0;

    const write = async (client: pg.Client, c: number) => {
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
          // Rolled back: neither the raw rows nor their deltas remain.
          await client.query("begin");
          await client.query(
            "insert into telemetry_events (workspace_id, event_type, occurred_at) select $1, 'ghost', now() from generate_series(1, 50)",
            [ds.workspaceId],
          );
          await client.query("rollback");
        }
      }
    };
    const fold = async (client: pg.Client) => {
      while (writing) {
        folds += (await compactMetricsRollups(client)) > 0 ? 1 : 0;
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    const read = async () => {
      while (writing) {
        const w = WINDOWS[reads % WINDOWS.length] as MetricsWindow;
        const { fromRollups, raw } = await answersInOneSnapshot(reader, ds.workspaceId, w);
        expect(fromRollups).toEqual(raw);
        reads += 1;
      }
    };

    const readers = [read(), ...compactors.map(fold)];
    try {
      await Promise.all(writers.map(write));
    } finally {
      writing = false;
      await Promise.all(readers);
    }
    expect(folds).toBeGreaterThan(0);
    expect(reads).toBeGreaterThan(0);

    // Folded completely, the daily and hourly rollups alone equal a fresh GROUP BY over the raw rows.
    await compactMetricsRollups(db);
    expect(await pendingDeltas(db)).toBe(0);
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
  });
});
