import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  buildRawEventMetricsQueries,
  EventMetricsResponse,
  type EventMetricsRow,
  queryEventMetrics,
  shapeEventMetrics,
} from "@a2a-partner/metrics-core";
import {
  ALERT_TYPES,
  buildTimeline,
  EVENT_TYPES,
  type GenerateHooks,
  GenerateUsageError,
  generateMetricsData as generateWith,
  parseGenerateArgs,
  timeAt,
} from "@a2a-partner/metrics-generator";
import type { Database } from "@a2a-partner/postgres-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createToken } from "../src/auth/tokens.ts";
import { workflowMix } from "../src/fleet/workflow-mix.ts";
import { seed } from "../src/seed.ts";
import { type Backend, createTestDatabase, postgresAvailable, type TestDatabase } from "./support/backends.ts";
import { seedMigratedDataDir } from "./support/migrated-template.ts";
import { startTestServer } from "./support/test-server.ts";

/** The generator as the server runs it: with the fleet's workflows. */
const generateMetricsData = (
  db: Database,
  options: Parameters<typeof generateWith>[1],
  hooks: Omit<GenerateHooks, "workflows"> = {},
) => generateWith(db, options, { ...hooks, workflows: workflowMix() });

const backends: Backend[] = ["pglite", ...((await postgresAvailable()) ? (["postgres"] as const) : [])];

describe("generator profile", () => {
  const start = new Date("2026-01-05T00:00:00Z"); // a Monday
  const end = new Date("2026-01-12T00:00:00Z");

  it("maps quantiles monotonically onto [start, end), busier by day than by night", () => {
    const timeline = buildTimeline(start, end, 7);
    expect(timeline.offsets[0]).toBe(0);
    expect(timeline.offsets.at(-1)).toBe(7 * 86_400);
    expect(timeline.cumulative.at(-1)).toBe(1);
    let previous = -1;
    for (let u = 0; u < 1; u += 0.001) {
      const t = timeAt(timeline, u);
      expect(t).toBeGreaterThan(previous);
      expect(t).toBeLessThan(timeline.spanSeconds);
      previous = t;
    }
    // Share of the first Monday's activity between 12:00 and 13:00 vs 03:00 and 04:00.
    const share = (hour: number) => {
      const i = timeline.offsets.indexOf(hour * 3600);
      return (timeline.cumulative[i + 1] as number) - (timeline.cumulative[i] as number);
    };
    expect(share(12)).toBeGreaterThan(5 * share(3));
  });

  it("cuts pieces at an unaligned end and changes the daily pattern with the seed", () => {
    const odd = buildTimeline(start, new Date("2026-01-06T05:30:00Z"), 1);
    expect(odd.offsets.at(-1)).toBe(29.5 * 3600);
    expect(odd.offsets.at(-2)).toBe(29 * 3600);
    expect(buildTimeline(start, end, 1).cumulative).not.toEqual(buildTimeline(start, end, 2).cumulative);
    expect(buildTimeline(start, end, 1).cumulative).toEqual(buildTimeline(start, end, 1).cumulative);
  });

  it("uses the simulated fleet's workflows", () => {
    expect(workflowMix().map((w) => w.name)).toEqual([
      "restock-shelf",
      "inventory-count",
      "fetch-item",
      "clean-spill",
      "general-task",
    ]);
  });
});

describe("generate arguments", () => {
  it("reads the options, with 1e6 and 10_000_000 shorthands and an optional end", () => {
    expect(parseGenerateArgs(["--workspace", "demo", "--events", "1e6", "--days", "90"])).toEqual({
      workspace: "demo",
      events: 1_000_000,
      days: 90,
      seed: 1,
    });
    expect(
      parseGenerateArgs(["--workspace=demo", "--events=10_000_000", "--days=7", "--seed=5", "--end=2026-01-01"]),
    ).toEqual({ workspace: "demo", events: 10_000_000, days: 7, seed: 5, end: new Date("2026-01-01T00:00:00Z") });
  });

  it.each([
    [[]],
    [["--workspace", "demo", "--days", "1"]],
    [["--workspace", "demo", "--events", "-5", "--days", "1"]],
    [["--workspace", "demo", "--events", "1.5", "--days", "1"]],
    [["--workspace", "demo", "--events", "ten", "--days", "1"]],
    [["--workspace", "demo", "--events", "10", "--days", "0"]],
    [["--workspace", "demo", "--events", "10", "--days", "99999"]],
    [["--workspace", "demo", "--events", "10", "--days", "1", "--end", "tomorrow"]],
    [["--workspace", "demo", "--events", "10", "--days", "1", "--bogus"]],
    [["--workspace", "demo", "--events", "10", "--days", "1", "extra"]],
  ])("refuses %j as a usage error", (args) => {
    expect(() => parseGenerateArgs(args)).toThrow(GenerateUsageError);
  });
});

describe.each(backends)("generateMetricsData on %s", (backend) => {
  let database: TestDatabase;
  let db: Database;
  let workspaceId: string;
  const end = new Date("2026-02-10T07:45:12.345Z"); // unaligned on purpose
  const options = { workspace: "demo", events: 6000, days: 10, end, seed: 42 };
  let summary: Awaited<ReturnType<typeof generateMetricsData>>;

  beforeAll(async () => {
    database = await createTestDatabase(backend);
    db = database.db;
    workspaceId = (await seed(db)).workspace.uuid;
    summary = await generateMetricsData(db, options, { batchSize: 2000 });
  });
  afterAll(async () => {
    await database?.drop();
  });

  const rawMetrics = async (id: string, window: { start: Date | null; end: Date | null }) => {
    const q = buildRawEventMetricsQueries(id, window);
    const { rows } = await db.query<EventMetricsRow>(q.text, q.values);
    return shapeEventMetrics(id, window, rows);
  };

  it("reports what it inserted, in proportion to the events", () => {
    expect(summary.workspace).toEqual({ uuid: workspaceId, slug: "demo" });
    expect(summary.window).toEqual({ start: "2026-01-31T07:45:12.345Z", end: "2026-02-10T07:45:12.345Z" });
    expect(summary.inserted.telemetry_events).toBe(6000);
    expect(summary.inserted.workflow_executions).toBe(240);
    expect(summary.inserted.alerts).toBe(30);
    // Every execution runs 1 … 5 nodes.
    expect(summary.inserted.workflow_node_executions).toBeGreaterThan(240);
    expect(summary.inserted.workflow_node_executions).toBeLessThanOrEqual(240 * 5);
    expect(summary.rows).toBe(Object.values(summary.inserted).reduce((a, b) => a + b, 0));
  });

  it("writes exactly that many records, all inside [start, end), and the rollups agree with a raw count", async () => {
    const window = { start: new Date(summary.window.start), end: new Date(summary.window.end) };
    const inWindow = await queryEventMetrics(db, workspaceId, window);
    const everything = await queryEventMetrics(db, workspaceId, { start: null, end: null });
    expect({ ...everything, window: inWindow.window }).toEqual(inWindow);
    expect(inWindow.telemetry.total).toBe(summary.inserted.telemetry_events);
    expect(inWindow.workflow_executions.total).toBe(summary.inserted.workflow_executions);
    expect(inWindow.workflow_node_executions.total).toBe(summary.inserted.workflow_node_executions);
    expect(inWindow.alerts.total).toBe(summary.inserted.alerts);
    expect(inWindow).toEqual(await rawMetrics(workspaceId, window));
    const unaligned = { start: new Date("2026-02-01T13:37:00.5Z"), end: new Date("2026-02-07T02:10:00Z") };
    expect(await queryEventMetrics(db, workspaceId, unaligned)).toEqual(await rawMetrics(workspaceId, unaligned));
    // Execution end times and node starts lie inside the span too.
    const { rows } = await db.query<{ late: number; early: number }>(
      `select (select count(*)::int from workflow_executions where workspace_id = $1 and finished_at >= $3) +
              (select count(*)::int from workflow_node_executions where workspace_id = $1 and finished_at >= $3) as late,
              (select count(*)::int from workflow_node_executions where workspace_id = $1 and started_at < $2) as early`,
      [workspaceId, window.start, window.end],
    );
    expect(rows[0]).toEqual({ late: 0, early: 0 });
  });

  it("folds the rollup deltas of its batches at the end, leaving no backlog for queries to scan", async () => {
    const { rows } = await db.query<{ n: number }>(
      `select ((select count(*) from metrics_deltas_telemetry_events) + (select count(*) from metrics_deltas_alerts)
             + (select count(*) from metrics_deltas_workflow_executions)
             + (select count(*) from metrics_deltas_workflow_node_executions))::int as n`,
    );
    expect(rows[0]?.n).toBe(0);
  });

  it("draws realistic mixes: every event type, workflow and alert type, busy days and quiet nights", async () => {
    const body = EventMetricsResponse.parse(await queryEventMetrics(db, workspaceId, { start: null, end: null }));
    expect(Object.keys(body.telemetry.by_event_type).sort()).toEqual(EVENT_TYPES.map(([t]) => t).sort());
    const moved = body.telemetry.by_event_type["robot.moved"] as number;
    expect(moved / 6000).toBeGreaterThan(0.25);
    expect(moved / 6000).toBeLessThan(0.35);
    expect(
      Object.values(body.workflow_executions.by_workflow)
        .map((w) => w.name)
        .sort(),
    ).toEqual(
      workflowMix()
        .map((w) => w.name)
        .sort(),
    );
    expect(Object.keys(body.alerts.by_alert_type).length).toBeGreaterThanOrEqual(3);
    for (const type of Object.keys(body.alerts.by_alert_type)) expect(ALERT_TYPES.map(([t]) => t)).toContain(type);
    const { rows } = await db.query<{ noon: number; night: number }>(
      `select count(*) filter (where extract(hour from occurred_at at time zone 'UTC') = 12)::int as noon,
              count(*) filter (where extract(hour from occurred_at at time zone 'UTC') = 3)::int as night
       from telemetry_events where workspace_id = $1`,
      [workspaceId],
    );
    expect(rows[0]?.noon).toBeGreaterThan(4 * (rows[0]?.night as number));
  });

  it("builds consistent executions: nodes of the execution's workflow, in order, on the workspace's robots", async () => {
    const { rows } = await db.query<{
      bad_workflow: number;
      too_many: number;
      no_robot: number;
      foreign_robot: number;
    }>(
      `select
         (select count(*)::int from workflow_node_executions n join workflow_executions e on e.id = n.workflow_execution_id
          where n.workspace_id = $1 and (n.workflow_id <> e.workflow_id or n.started_at < e.started_at
                                         or n.finished_at > e.finished_at)) as bad_workflow,
         (select count(*)::int from (select workflow_execution_id from workflow_node_executions where workspace_id = $1
                                     group by 1 having count(*) > 5) x) as too_many,
         (select count(*)::int from telemetry_events where workspace_id = $1 and robot_id is null) as no_robot,
         (select count(*)::int from telemetry_events t where workspace_id = $1 and not exists (
            select 1 from robots r join environments e on e.id = r.environment_id
            where r.id = t.robot_id and e.id = t.environment_id and e.workspace_id = $1)) as foreign_robot`,
      [workspaceId],
    );
    expect(rows[0]).toEqual({ bad_workflow: 0, too_many: 0, no_robot: 0, foreign_robot: 0 });
    const statuses = await db.query<{ status: string }>(
      "select distinct status from workflow_executions where workspace_id = $1 order by 1",
      [workspaceId],
    );
    expect(statuses.rows.map((r) => r.status)).toContain("completed");
  });

  it("gives the same daily counts for the same seed, and different ones for another seed", async () => {
    const twin = async (slug: string, seedValue: number) => {
      const { rows } = await db.query<{ id: string }>(
        "insert into workspaces (slug, name, visibility) values ($1, $1, 'private') returning id",
        [slug],
      );
      await generateMetricsData(db, { ...options, workspace: slug, seed: seedValue }, { batchSize: 2000 });
      const body = await queryEventMetrics(db, rows[0]?.id as string, { start: null, end: null });
      return { telemetry: body.telemetry.by_day, alerts: body.alerts.by_day };
    };
    const mine = await queryEventMetrics(db, workspaceId, { start: null, end: null });
    const same = await twin("twin-42", 42);
    expect(same).toEqual({ telemetry: mine.telemetry.by_day, alerts: mine.alerts.by_day });
    expect((await twin("twin-43", 43)).telemetry).not.toEqual(mine.telemetry.by_day);
  });

  it("refuses an unknown workspace as a usage error and writes nothing", async () => {
    const before = await db.query<{ n: number }>("select count(*)::int as n from telemetry_events");
    await expect(generateMetricsData(db, { ...options, workspace: "nope" })).rejects.toThrow(GenerateUsageError);
    expect((await db.query<{ n: number }>("select count(*)::int as n from telemetry_events")).rows).toEqual(
      before.rows,
    );
  });

  it("feeds the endpoint: its totals match the summary", async () => {
    const server = await startTestServer(db);
    try {
      const token = await createToken(db, {
        kind: "user",
        userId: (await db.query<{ id: string }>("select id from users where email = 'demo@example.com'")).rows[0]
          ?.id as string,
      });
      const res = await fetch(
        `${server.url}/api/v1/metrics/events/demo?start_timestamp=${summary.window.start}&end_timestamp=${summary.window.end}`,
        { headers: { authorization: `Bearer ${token}` } },
      );
      const body = await res.json();
      expect([
        body.telemetry.total,
        body.workflow_executions.total,
        body.workflow_node_executions.total,
        body.alerts.total,
      ]).toEqual([
        summary.inserted.telemetry_events,
        summary.inserted.workflow_executions,
        summary.inserted.workflow_node_executions,
        summary.inserted.alerts,
      ]);
    } finally {
      await server.stop();
    }
  });
});

describe("pnpm cli generate", () => {
  const serverDir = fileURLToPath(new URL("..", import.meta.url));
  const run = promisify(execFile);
  let dataRoot: string;
  const cli = (args: string[]) =>
    run(process.execPath, ["src/cli.ts", ...args], {
      cwd: serverDir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: join(dataRoot, "pglite"), LOG_LEVEL: "warn" },
    });

  beforeAll(async () => {
    dataRoot = await mkdtemp(join(tmpdir(), "a2a-generate-"));
    await seedMigratedDataDir(join(dataRoot, "pglite"));
  });
  afterAll(async () => {
    await rm(dataRoot, { recursive: true, force: true });
  });

  it("loads the embedded store and prints one JSON summary line; usage errors exit 2, an unknown workspace 1", async () => {
    await cli(["seed"]);
    const { stdout } = await cli(["generate", "--workspace", "demo", "--events", "3000", "--days", "3", "--seed", "9"]);
    const lines = stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const summary = JSON.parse(lines[0] as string);
    expect(summary).toMatchObject({
      workspace: { slug: "demo" },
      seed: 9,
      inserted: { telemetry_events: 3000, workflow_executions: 120, alerts: 15 },
    });
    expect(Date.parse(summary.window.end) - Date.parse(summary.window.start)).toBe(3 * 86_400_000);

    // A malformed command line is a usage error (2); a workspace that does not exist a failure (1).
    for (const [args, code] of [
      [["generate", "--workspace", "demo", "--events", "x", "--days", "3"], 2],
      [["generate", "--workspace", "nope", "--events", "10", "--days", "3"], 1],
    ] as const) {
      const failed = await cli([...args]).then(
        () => undefined,
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed?.code).toBe(code);
      expect(failed?.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
    }
  }, 120_000);
});
