import { randomUUID } from "node:crypto";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildRawEventMetricsQueries,
  compactMetricsRollups,
  EventMetricsResponse,
  type EventMetricsRow,
  type MetricsWindow,
  parseMetricsWindow,
  queryEventMetrics,
  shapeEventMetrics,
} from "../../src/index.js";
import type { TestDatabase } from "./databases.js";
import {
  type Dataset,
  emptyDataset,
  expectedRollups,
  insertDataset,
  isoFromMicros,
  micros,
  naiveMetrics,
  pendingDeltas,
  readRollups,
  telemetryAt,
} from "./dataset.js";

const window = (start: string | null, end: string | null): MetricsWindow => ({
  start: start === null ? null : new Date(start),
  end: end === null ? null : new Date(end),
});

async function rawMetrics(db: TestDatabase, workspaceId: string, w: MetricsWindow) {
  const q = buildRawEventMetricsQueries(workspaceId, w);
  const { rows } = await db.query<EventMetricsRow>(q.text, q.values);
  return shapeEventMetrics(workspaceId, w, rows);
}

// ---- random data: a few UTC days, biased towards midnights and the microseconds around them ----------
const BASE = micros("2026-01-01T00:00:00Z");
const DAY = 86_400_000_000n;
const instant = fc.oneof(
  fc.integer({ min: 0, max: 4 }).map((d) => BASE + BigInt(d) * DAY),
  fc.bigInt({ min: 0n, max: 5n * DAY - 1n }).map((us) => BASE + us),
  fc
    .tuple(fc.integer({ min: 1, max: 4 }), fc.integer({ min: -2_000, max: 2_000 }))
    .map(([d, us]) => BASE + BigInt(d) * DAY + BigInt(us)),
);
const datasetSpec = fc.record({
  workflows: fc.array(fc.constantFrom("pick", "restock", "audit"), { minLength: 1, maxLength: 3 }),
  telemetry: fc.array(fc.tuple(fc.constantFrom("robot.moved", "robot.picked", "battery.level"), instant), {
    maxLength: 40,
  }),
  alerts: fc.array(fc.tuple(fc.constantFrom("obstacle_detected", "low_battery"), instant), { maxLength: 15 }),
  executions: fc.array(fc.tuple(fc.nat(), instant), { maxLength: 15 }),
  nodes: fc.array(fc.tuple(fc.nat(), instant), { maxLength: 25 }),
});
type DatasetSpec = typeof datasetSpec extends fc.Arbitrary<infer T> ? T : never;

function buildDataset(spec: DatasetSpec): Dataset {
  const ds = emptyDataset(spec.workflows);
  const pick = <T>(items: T[], n: number) => items[n % items.length] as T;
  ds.telemetry = spec.telemetry.map(([eventType, at]) => ({ eventType, at: isoFromMicros(at) }));
  ds.alerts = spec.alerts.map(([alertType, at]) => ({ alertType, at: isoFromMicros(at) }));
  ds.executions = spec.executions.map(([w, at]) => ({
    id: randomUUID(),
    workflowId: pick(ds.workflows, w).id,
    at: isoFromMicros(at),
  }));
  if (ds.executions.length > 0) {
    ds.nodeExecutions = spec.nodes.map(([e, at]) => {
      const execution = pick(ds.executions, e);
      return { id: randomUUID(), executionId: execution.id, workflowId: execution.workflowId, at: isoFromMicros(at) };
    });
  }
  return ds;
}

/** A bound: open, an instant (midnight, near midnight, anywhere), or exactly the time of a record. */
const boundSpec = fc.oneof(
  fc.constant(null),
  instant.map((us) => ({ us })),
  fc.nat().map((record) => ({ record })),
);
type BoundSpec = typeof boundSpec extends fc.Arbitrary<infer T> ? T : never;

function resolveWindow(ds: Dataset, [a, b]: [BoundSpec, BoundSpec]): MetricsWindow {
  const times = [...ds.telemetry, ...ds.alerts, ...ds.executions, ...ds.nodeExecutions].map((r) => r.at);
  const toMs = (spec: BoundSpec): number | null => {
    if (spec === null) return null;
    if ("us" in spec) return Number(spec.us / 1000n);
    if (times.length === 0) return null;
    return Number(micros(times[spec.record % times.length] as string) / 1000n);
  };
  let start = toMs(a);
  let end = toMs(b);
  if (start !== null && end !== null) {
    if (start === end) end = null;
    else if (start > end) [start, end] = [end, start];
  }
  return { start: start === null ? null : new Date(start), end: end === null ? null : new Date(end) };
}

/** Registers the shared integration suite against one database. */
export function defineMetricsSuite(open: () => Promise<TestDatabase>): void {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await open();
  });
  /** Folds every pending delta (the only session here, so no kind is skipped). */
  const compact = () => compactMetricsRollups(db);
  afterAll(async () => {
    await db?.close();
  });

  describe("windows and edges", () => {
    it("an empty workspace answers zeros and empty maps", async () => {
      const ds = emptyDataset(["pick"]);
      await insertDataset(db, ds);
      const body = await queryEventMetrics(db, ds.workspaceId, window(null, null));
      expect(body).toEqual({
        workspace_uuid: ds.workspaceId,
        window: { start: null, end: null },
        telemetry: { total: 0, by_event_type: {}, by_day: [] },
        workflow_executions: { total: 0, by_workflow: {}, by_day: [] },
        workflow_node_executions: { total: 0, by_workflow: {}, by_day: [] },
        alerts: { total: 0, by_alert_type: {}, by_day: [] },
      });
    });

    it("counts what the records say, by UTC day, in one round trip", async () => {
      const ds = emptyDataset(["pick", "restock"]);
      const [pick, restock] = ds.workflows as [Dataset["workflows"][0], Dataset["workflows"][0]];
      ds.telemetry = [
        { eventType: "robot.moved", at: "2026-01-01T00:00:00Z" },
        { eventType: "robot.moved", at: "2026-01-01T23:59:59.999999Z" },
        { eventType: "battery.level", at: "2026-01-02T00:00:00Z" },
      ];
      ds.alerts = [{ alertType: "obstacle_detected", at: "2026-01-02T10:00:00Z" }];
      ds.executions = [
        { id: randomUUID(), workflowId: pick.id, at: "2026-01-01T10:00:00Z" },
        { id: randomUUID(), workflowId: restock.id, at: "2026-01-02T10:00:00Z" },
      ];
      ds.nodeExecutions = [
        {
          id: randomUUID(),
          executionId: ds.executions[0]?.id as string,
          workflowId: pick.id,
          at: "2026-01-01T10:00:01Z",
        },
      ];
      await insertDataset(db, ds);

      let calls = 0;
      const counting = {
        query: (sql: string, params: unknown[]) => {
          calls += 1;
          return db.query(sql, params);
        },
      };
      const body = await queryEventMetrics(counting, ds.workspaceId, window("2026-01-01", "2026-01-03"));
      expect(calls).toBe(1);
      expect(EventMetricsResponse.parse(body)).toEqual(body);
      expect(body.telemetry).toEqual({
        total: 3,
        by_event_type: { "robot.moved": 2, "battery.level": 1 },
        by_day: [
          { day: "2026-01-01", event_type: "robot.moved", count: 2 },
          { day: "2026-01-02", event_type: "battery.level", count: 1 },
        ],
      });
      expect(body.workflow_executions.by_workflow).toEqual({
        [pick.id]: { name: "pick", count: 1 },
        [restock.id]: { name: "restock", count: 1 },
      });
      expect(body.workflow_node_executions).toEqual({
        total: 1,
        by_workflow: { [pick.id]: { name: "pick", count: 1 } },
        by_day: [{ day: "2026-01-01", workflow_uuid: pick.id, workflow_name: "pick", count: 1 }],
      });
      expect(body.alerts.by_day).toEqual([{ day: "2026-01-02", alert_type: "obstacle_detected", count: 1 }]);
    });

    it("counts a record exactly at start and not one exactly at end, on every read path", async () => {
      const ds = emptyDataset();
      const times = [
        "2026-01-01T05:09:59.999999Z",
        "2026-01-01T05:10:00Z", // = start of the window that counts hour 05 minus raw rows before 05:10
        "2026-01-01T05:59:59.999999Z",
        "2026-01-01T06:00:00Z", // = start of the hour-aligned windows
        "2026-01-02T00:00:00Z", // = start of the day-aligned window
        "2026-01-03T19:59:59.999999Z",
        "2026-01-03T20:00:00Z", // = end of the hour-aligned windows
        "2026-01-04T00:00:00Z", // = end of the day-aligned window
      ];
      ds.telemetry = telemetryAt(times);
      await insertDataset(db, ds);
      const cases: [MetricsWindow, number][] = [
        [window("2026-01-02T00:00:00Z", "2026-01-04T00:00:00Z"), 3], // daily rollups only
        [window("2026-01-01T06:00:00Z", "2026-01-03T20:00:00Z"), 3], // daily + hourly rollups
        [window("2026-01-03T19:00:00Z", "2026-01-03T20:00:00Z"), 1], // one hourly bucket
        [window("2026-01-01T06:00:00Z", "2026-01-01T06:00:00.001Z"), 1], // raw rows only
        [window("2026-01-01T05:10:00Z", "2026-01-03T20:00:00.001Z"), 6], // hour minus raw; raw tail
      ];
      for (const [w, total] of cases) {
        const body = await queryEventMetrics(db, ds.workspaceId, w);
        expect({ w, total: body.telemetry.total }).toEqual({ w, total });
        expect(body).toEqual(naiveMetrics(ds, w));
      }
    });

    it("honours offsets (+05:30, -08:00) and midnight bounds from the query string", async () => {
      const ds = emptyDataset();
      ds.alerts = [
        { alertType: "a", at: "2026-01-01T23:59:59.999Z" },
        { alertType: "a", at: "2026-01-02T00:00:00Z" },
        { alertType: "a", at: "2026-01-02T23:59:59.999Z" },
        { alertType: "a", at: "2026-01-03T00:00:00Z" },
      ];
      await insertDataset(db, ds);
      const w = parseMetricsWindow({
        start_timestamp: "2026-01-02T05:30:00+05:30",
        end_timestamp: "2026-01-02T16:00:00-08:00",
      });
      const body = await queryEventMetrics(db, ds.workspaceId, w);
      expect(body.window).toEqual({ start: "2026-01-02T00:00:00.000Z", end: "2026-01-03T00:00:00.000Z" });
      expect(body.alerts.by_day).toEqual([{ day: "2026-01-02", alert_type: "a", count: 2 }]);
    });

    it("supports only start, only end, no bounds, and a window with no records", async () => {
      const ds = emptyDataset();
      ds.telemetry = telemetryAt(["2026-01-01T12:00:00Z", "2026-01-02T12:00:00Z", "2026-01-03T12:00:00Z"]);
      await insertDataset(db, ds);
      const totals = async (w: MetricsWindow) => (await queryEventMetrics(db, ds.workspaceId, w)).telemetry.total;
      expect(await totals(window("2026-01-02T12:00:00Z", null))).toBe(2);
      expect(await totals(window(null, "2026-01-02T12:00:00Z"))).toBe(1);
      expect(await totals(window(null, null))).toBe(3);
      expect(await totals(window("2026-03-01", "2026-04-01"))).toBe(0);
      expect(await totals(window("2026-01-01T12:00:00.001Z", "2026-01-02T12:00:00Z"))).toBe(0);
    });

    it("handles very old and far-future records and bounds", async () => {
      const ds = emptyDataset();
      ds.telemetry = telemetryAt([
        "0001-01-01T00:00:00Z",
        "1969-12-31T23:59:59.999999Z",
        "9999-12-31T23:59:59.999999Z",
      ]);
      await insertDataset(db, ds);
      const cases: [MetricsWindow, number][] = [
        [window(null, null), 3],
        [window("0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999Z"), 2], // the last record is after end
        [window("9999-12-31T06:00:00Z", null), 1], // head day by rollup minus raw, open end
        [window("9999-12-31T20:00:00Z", null), 1], // head by raw up to the year-10000 midnight
        [window(null, "0001-01-01T12:00:00Z"), 1],
        [window(null, "0001-01-01T00:00:00.001Z"), 1],
        [window("1969-12-31T23:59:59.999Z", "1970-01-01T00:00:00Z"), 1],
      ];
      for (const [w, total] of cases) {
        const body = await queryEventMetrics(db, ds.workspaceId, w);
        expect({ w, total: body.telemetry.total }).toEqual({ w, total });
        expect(body).toEqual(naiveMetrics(ds, w));
      }
      const all = await queryEventMetrics(db, ds.workspaceId, window(null, null));
      expect(all.telemetry.by_day.map((d) => d.day)).toEqual(["0001-01-01", "1969-12-31", "9999-12-31"]);
    });

    it("refuses a record whose time no window can name (infinity, BC, past 9999), and keeps answering", async () => {
      const ds = emptyDataset(["pick"]);
      ds.telemetry = telemetryAt(["2026-01-01T00:00:00Z"]);
      ds.executions = [
        { id: randomUUID(), workflowId: (ds.workflows[0] as { id: string }).id, at: "2026-01-01T00:00:00Z" },
      ];
      await insertDataset(db, ds);
      const execution = ds.executions[0] as { id: string; workflowId: string };
      const inserts: [string, string, unknown[]][] = [
        [
          "telemetry_events",
          "insert into telemetry_events (workspace_id, event_type, occurred_at) values ($1, 'e', $2)",
          [],
        ],
        ["alerts", "insert into alerts (workspace_id, alert_type, occurred_at) values ($1, 'a', $2)", []],
        [
          "workflow_executions",
          "insert into workflow_executions (workspace_id, workflow_id, status, started_at) values ($1, $3, 'running', $2)",
          [execution.workflowId],
        ],
        [
          "workflow_node_executions",
          `insert into workflow_node_executions (workspace_id, workflow_execution_id, workflow_id, node_name, status, started_at)
           values ($1, $3, $4, 'n', 'completed', $2)`,
          [execution.id, execution.workflowId],
        ],
      ];
      for (const [table, sql, extra] of inserts) {
        for (const at of ["infinity", "-infinity", "0100-06-01 00:00:00+00 BC", "10000-01-01 00:00:00+00"]) {
          await expect(db.query(sql, [ds.workspaceId, at, ...extra]), `${table} at ${at}`).rejects.toMatchObject({
            code: "23514",
          });
        }
      }
      // The range's own ends are stored, and a window over everything still answers.
      await db.query(inserts[0]?.[1] as string, [ds.workspaceId, "0001-01-01 00:00:00+00"]);
      await db.query(inserts[0]?.[1] as string, [ds.workspaceId, "9999-12-31 23:59:59.999999+00"]);
      const all = await queryEventMetrics(db, ds.workspaceId, window(null, null));
      expect(all.telemetry.by_day.map((d) => d.day)).toEqual(["0001-01-01", "2026-01-01", "9999-12-31"]);
      expect(all.workflow_executions.total).toBe(1);
    });

    it("runs on the driver object as it is (pg.Client / pg.Pool / PGlite need no adapter)", async () => {
      const ds = emptyDataset();
      ds.alerts = [{ alertType: "a", at: "2026-01-01T12:00:00Z" }];
      await insertDataset(db, ds);
      const body = await queryEventMetrics(db.driver, ds.workspaceId, window("2026-01-01T06:00:00Z", null));
      expect(body).toEqual(naiveMetrics(ds, window("2026-01-01T06:00:00Z", null)));
    });

    it("counts only the requested workspace", async () => {
      const mine = emptyDataset();
      const theirs = emptyDataset();
      mine.alerts = [{ alertType: "a", at: "2026-01-01T12:00:00Z" }];
      theirs.alerts = [
        { alertType: "a", at: "2026-01-01T12:00:00Z" },
        { alertType: "b", at: "2026-01-01T13:00:00Z" },
      ];
      await insertDataset(db, mine);
      await insertDataset(db, theirs);
      for (const w of [window(null, null), window("2026-01-01T06:00:00Z", "2026-01-01T18:00:00Z")]) {
        const body = await queryEventMetrics(db, mine.workspaceId, w);
        expect(body.alerts.by_alert_type).toEqual({ a: 1 });
      }
    });

    it("takes workflow names from workflows.name and keeps same-named workflows apart", async () => {
      const ds = emptyDataset(["pick", "pick"]);
      const [first, second] = ds.workflows as [Dataset["workflows"][0], Dataset["workflows"][0]];
      ds.executions = [
        { id: randomUUID(), workflowId: first.id, at: "2026-01-01T12:00:00Z" },
        { id: randomUUID(), workflowId: second.id, at: "2026-01-01T12:00:00Z" },
        { id: randomUUID(), workflowId: second.id, at: "2026-01-01T13:00:00Z" },
      ];
      await insertDataset(db, ds);
      await db.query("update workflows set name = 'pick v2' where id = $1", [second.id]);
      const body = await queryEventMetrics(db, ds.workspaceId, window(null, null));
      expect(body.workflow_executions.by_workflow).toEqual({
        [first.id]: { name: "pick", count: 1 },
        [second.id]: { name: "pick v2", count: 2 },
      });
      expect(body.workflow_executions.by_day.map((d) => [d.workflow_uuid, d.count])).toEqual(
        [
          [first.id, 1],
          [second.id, 2],
        ].sort((a, b) => ((a[0] as string) < (b[0] as string) ? -1 : 1)),
      );
    });

    it("treats odd keys as data: quotes, SQL, __proto__, empty, unicode", async () => {
      const ds = emptyDataset();
      const keys = ["'; drop table telemetry_events; --", "__proto__", "", "ロボット", "$1"];
      ds.telemetry = keys.map((eventType) => ({ eventType, at: "2026-01-01T12:00:00Z" }));
      await insertDataset(db, ds);
      const body = await queryEventMetrics(db, ds.workspaceId, window("2026-01-01T06:00:00Z", null));
      expect(body).toEqual(naiveMetrics(ds, window("2026-01-01T06:00:00Z", null)));
      expect(Object.keys(body.telemetry.by_event_type).sort()).toEqual([...keys].sort());
      await compact();
      expect(await queryEventMetrics(db, ds.workspaceId, window("2026-01-01T06:00:00Z", null))).toEqual(body);
    });
  });

  describe("rollups", () => {
    // Between raw tables the rollups may be compacted or not, so sections are answered from unfolded
    // deltas, from rollups, or both; after a final compaction the rollup tables alone hold every count.
    it("give exactly the naive count and the raw scan for random records and windows, folded or not", async () => {
      await fc.assert(
        fc.asyncProperty(
          datasetSpec,
          fc.array(fc.tuple(boundSpec, boundSpec), { minLength: 1, maxLength: 4 }),
          fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
          async (spec, windows, foldAfterTable) => {
            const ds = buildDataset(spec);
            const folds = [...foldAfterTable];
            await insertDataset(db, ds, { afterTable: () => (folds.shift() ? compact() : Promise.resolve()) });
            expect(await readRollups(db, ds.workspaceId)).toEqual(expectedRollups(ds));
            for (const bounds of windows) {
              const w = resolveWindow(ds, bounds);
              const expected = naiveMetrics(ds, w);
              expect(await queryEventMetrics(db, ds.workspaceId, w)).toEqual(expected);
              expect(await rawMetrics(db, ds.workspaceId, w)).toEqual(expected);
            }
            await compact();
            expect(await pendingDeltas(db)).toBe(0);
            expect(await readRollups(db, ds.workspaceId, { stored: true })).toEqual(expectedRollups(ds));
            const w = resolveWindow(ds, windows[0] as [BoundSpec, BoundSpec]);
            expect(await queryEventMetrics(db, ds.workspaceId, w)).toEqual(naiveMetrics(ds, w));
          },
        ),
        { numRuns: 40 },
      );
    });

    it("answer from rollups plus unfolded deltas on every read path, and the same once folded", async () => {
      const ds = emptyDataset(["pick"]);
      const pick = ds.workflows[0] as Dataset["workflows"][0];
      // Around the bounds below: in whole days, in whole hours of a partial day, in partial hours.
      ds.telemetry = telemetryAt([
        "2026-01-01T05:05:00Z",
        "2026-01-01T05:40:00Z",
        "2026-01-01T06:30:00Z",
        "2026-01-02T12:00:00Z",
        "2026-01-03T19:50:00Z",
        "2026-01-03T20:05:00Z",
      ]);
      ds.executions = [{ id: randomUUID(), workflowId: pick.id, at: "2026-01-02T00:00:00Z" }];
      ds.alerts = [{ alertType: "a", at: "2026-01-03T19:59:59.999999Z" }];
      await insertDataset(db, ds);
      const windows = [
        window("2026-01-01", "2026-01-04"),
        window("2026-01-01T06:00:00Z", "2026-01-03T20:00:00Z"),
        window("2026-01-01T05:10:00Z", "2026-01-03T20:10:00Z"),
        window("2026-01-01T05:35:00Z", "2026-01-03T19:55:00Z"),
        window(null, "2026-01-02T00:00:00.001Z"),
        window(null, null),
      ];
      // One after the other: the database is one connection (pg deprecates queries queued on a busy client).
      const answers = async () => {
        const all = [];
        for (const w of windows) all.push(await queryEventMetrics(db, ds.workspaceId, w));
        return all;
      };
      const expected = windows.map((w) => naiveMetrics(ds, w));
      const { rows } = await db.query<{ n: string }>(
        "select count(*)::text as n from metrics_deltas_telemetry_events where workspace_id = $1",
        [ds.workspaceId],
      );
      expect(Number(rows[0]?.n)).toBeGreaterThan(0);
      expect(await answers()).toEqual(expected);
      expect(await compact()).toBeGreaterThan(0);
      expect(await pendingDeltas(db)).toBe(0);
      expect(await answers()).toEqual(expected);
      expect(await compact()).toBe(0);
    });

    it("stay exact through deletes, moves across days and keys, and status-only updates", async () => {
      const mutation = fc.record({
        deleteTelemetry: fc.array(fc.boolean(), { maxLength: 40 }),
        moveTelemetry: fc.array(fc.option(instant, { nil: undefined }), { maxLength: 40 }),
        deleteAlerts: fc.array(fc.boolean(), { maxLength: 15 }),
        moveExecutions: fc.array(fc.option(fc.tuple(fc.nat(), instant), { nil: undefined }), { maxLength: 15 }),
        deleteNodes: fc.array(fc.boolean(), { maxLength: 25 }),
        // Compact before each change or not: negative deltas then meet folded rows, pending ones or both.
        foldBefore: fc.array(fc.boolean(), { minLength: 7, maxLength: 7 }),
      });
      await fc.assert(
        fc.asyncProperty(datasetSpec, mutation, fc.tuple(boundSpec, boundSpec), async (spec, m, bounds) => {
          const ds = buildDataset(spec);
          await insertDataset(db, ds);
          const ws = ds.workspaceId;
          const folds = [...m.foldBefore];
          const maybeFold = () => (folds.shift() ? compact() : Promise.resolve());

          // Each change is one statement, so the triggers see multi-row transition tables.
          const deletedTelemetry = ds.telemetry.map((_, i) => i).filter((i) => m.deleteTelemetry[i] === true);
          await maybeFold();
          await db.query(
            `delete from telemetry_events where workspace_id = $1
             and (payload->>'i')::int in (select value::int from jsonb_array_elements_text($2::jsonb))`,
            [ws, JSON.stringify(deletedTelemetry)],
          );
          const moves = ds.telemetry
            .map((_, i) => ({ i, to: m.moveTelemetry[i] }))
            .filter((x): x is { i: number; to: bigint } => x.to !== undefined && !deletedTelemetry.includes(x.i))
            .map(({ i, to }) => ({ i, at: isoFromMicros(to) }));
          await maybeFold();
          await db.query(
            `update telemetry_events t set occurred_at = m.at
             from jsonb_to_recordset($2::jsonb) as m(i int, at timestamptz)
             where t.workspace_id = $1 and (t.payload->>'i')::int = m.i`,
            [ws, JSON.stringify(moves)],
          );
          await maybeFold();
          await db.query(
            `delete from alerts where workspace_id = $1
             and message in (select jsonb_array_elements_text($2::jsonb))`,
            [ws, JSON.stringify(ds.alerts.map((_, i) => String(i)).filter((_, i) => m.deleteAlerts[i] === true))],
          );
          const deletedNodes = ds.nodeExecutions.filter((_, i) => m.deleteNodes[i] === true).map((n) => n.id);
          await maybeFold();
          await db.query(
            "delete from workflow_node_executions where id in (select value::uuid from jsonb_array_elements_text($1::jsonb))",
            [JSON.stringify(deletedNodes)],
          );
          const executionMoves = ds.executions.flatMap((e, i) => {
            const move = m.moveExecutions[i];
            if (move === undefined) return [];
            const workflow = ds.workflows[move[0] % ds.workflows.length] as Dataset["workflows"][0];
            return [{ id: e.id, workflow_id: workflow.id, at: isoFromMicros(move[1]) }];
          });
          await maybeFold();
          await db.query(
            `update workflow_executions e set workflow_id = m.workflow_id, started_at = m.at
             from jsonb_to_recordset($1::jsonb) as m(id uuid, workflow_id uuid, at timestamptz)
             where e.id = m.id`,
            [JSON.stringify(executionMoves)],
          );
          // A status change keeps day and key: nothing to count differently.
          await maybeFold();
          await db.query("update workflow_executions set status = 'failed' where workspace_id = $1", [ws]);

          // The same changes, applied to the JS model.
          ds.telemetry = ds.telemetry
            .map((t, i) => ({ ...t, at: moves.find((x) => x.i === i)?.at ?? t.at, i }))
            .filter((t) => !deletedTelemetry.includes(t.i))
            .map(({ eventType, at }) => ({ eventType, at }));
          ds.alerts = ds.alerts.filter((_, i) => m.deleteAlerts[i] !== true);
          ds.nodeExecutions = ds.nodeExecutions.filter((n) => !deletedNodes.includes(n.id));
          ds.executions = ds.executions.map((e) => {
            const move = executionMoves.find((x) => x.id === e.id);
            return move === undefined ? e : { ...e, workflowId: move.workflow_id, at: move.at };
          });

          expect(await readRollups(db, ws)).toEqual(expectedRollups(ds));
          const w = resolveWindow(ds, bounds);
          expect(await queryEventMetrics(db, ws, w)).toEqual(naiveMetrics(ds, w));
          await maybeFold();
          expect(await queryEventMetrics(db, ws, w)).toEqual(naiveMetrics(ds, w));
          await compact();
          expect(await readRollups(db, ws, { stored: true })).toEqual(expectedRollups(ds));
        }),
        { numRuns: 30 },
      );
    });

    it("drop rows that fall to zero when compacted, so they stay sparse", async () => {
      const ds = emptyDataset();
      ds.telemetry = [
        { eventType: "gone", at: "2026-01-01T12:00:00Z" },
        { eventType: "kept", at: "2026-01-01T12:00:00Z" },
      ];
      await insertDataset(db, ds);
      await compact();
      await db.query("delete from telemetry_events where workspace_id = $1 and event_type = 'gone'", [ds.workspaceId]);
      expect(
        Object.keys((await queryEventMetrics(db, ds.workspaceId, window(null, null))).telemetry.by_event_type),
      ).toEqual(["kept"]);
      await compact();
      for (const table of ["metrics_daily_telemetry_events", "metrics_hourly_telemetry_events"]) {
        const { rows } = await db.query<{ event_type: string }>(
          `select event_type from ${table} where workspace_id = $1`,
          [ds.workspaceId],
        );
        expect(rows).toEqual([{ event_type: "kept" }]);
      }
    });

    it("keep up with a bulk INSERT ... SELECT", async () => {
      const ds = emptyDataset();
      await insertDataset(db, ds);
      // 20 000 events over ~14 days, 7 event types, in one statement.
      await db.query(
        `insert into telemetry_events (workspace_id, event_type, occurred_at)
         select $1, 'type-' || (g % 7), timestamptz '2026-01-01T00:00:00Z' + g * interval '61 seconds'
         from generate_series(1, 20000) g`,
        [ds.workspaceId],
      );
      const sums = async () =>
        (
          await db.query<{ daily: string; hourly: string; deltas: string; raw: string }>(
            `select (select coalesce(sum(count), 0) from metrics_daily_telemetry_events where workspace_id = $1)::text as daily,
                    (select coalesce(sum(count), 0) from metrics_hourly_telemetry_events where workspace_id = $1)::text as hourly,
                    (select coalesce(sum(count), 0) from metrics_deltas_telemetry_events where workspace_id = $1)::text as deltas,
                    (select count(*) from telemetry_events where workspace_id = $1)::text as raw`,
            [ds.workspaceId],
          )
        ).rows[0];
      const windows = [
        window("2026-01-02T03:04:05.678Z", "2026-01-11T22:33:44.555Z"),
        window("2026-01-02T03:54:05.678Z", "2026-01-11T22:03:44.555Z"),
        window("2026-01-03T13:00:00Z", null),
        window(null, "2026-01-05T01:00:00Z"),
      ];
      // One statement, one delta row per (hour, type): 20 000 events over ~339 hours, 7 types.
      expect(await sums()).toEqual({ daily: "0", hourly: "0", deltas: "20000", raw: "20000" });
      for (const w of windows) {
        expect(await queryEventMetrics(db, ds.workspaceId, w)).toEqual(await rawMetrics(db, ds.workspaceId, w));
      }
      await compact();
      expect(await sums()).toEqual({ daily: "20000", hourly: "20000", deltas: "0", raw: "20000" });
      for (const w of windows) {
        expect(await queryEventMetrics(db, ds.workspaceId, w)).toEqual(await rawMetrics(db, ds.workspaceId, w));
      }
    });

    it("are emptied by TRUNCATE of the raw table, folded or not, and count afresh after it", async () => {
      const ds = emptyDataset();
      ds.alerts = [{ alertType: "a", at: "2026-01-01T12:00:00Z" }];
      await insertDataset(db, ds);
      await compact();
      await db.query(
        "insert into alerts (workspace_id, alert_type, occurred_at) values ($1, 'b', '2026-01-02T12:00:00Z')",
        [ds.workspaceId],
      );
      await db.query("truncate alerts");
      const { rows } = await db.query<{ n: string }>(
        `select ((select count(*) from metrics_daily_alerts) + (select count(*) from metrics_hourly_alerts)
               + (select count(*) from metrics_deltas_alerts))::text as n`,
      );
      expect(rows).toEqual([{ n: "0" }]);
      await db.query(
        "insert into alerts (workspace_id, alert_type, occurred_at) values ($1, 'c', '2026-01-03T12:00:00Z')",
        [ds.workspaceId],
      );
      await compact();
      const body = await queryEventMetrics(db, ds.workspaceId, window(null, null));
      expect(body.alerts.by_day).toEqual([{ day: "2026-01-03", alert_type: "c", count: 1 }]);
    });
  });
}
