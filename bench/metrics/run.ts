/**
 * The metrics benchmark (issue #4): on the real PostgreSQL, in a database of its own (created and dropped
 * here), loads N telemetry events (1M by default, 10M with --10m) plus proportional workflow runs and
 * alerts over 90 days for one workspace, and noise in four others, with the same generator as
 * `pnpm cli generate`. Then it times the endpoint's query (daily/hourly rollups) against a raw GROUP BY
 * over the same rows for several windows, checks both give the same answer, and times the HTTP endpoint.
 *
 *   pnpm bench:metrics                  # 1M events
 *   pnpm bench:metrics --10m            # 10M events
 *   pnpm bench:metrics --events 3e6 --runs 51 --raw-runs 5 --keep
 *
 * DATABASE_URL_TEST (default postgres://postgres@127.0.0.1:5432/test) names the server; the bench
 * connects to it to create and drop the database `a2a_bench` (--database to change).
 */
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { cpus, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { createApp } from "../../examples/server/src/app.ts";
import { createToken } from "../../examples/server/src/auth/tokens.ts";
import { loadConfig } from "../../examples/server/src/config.ts";
import { type GenerateSummary, generateMetricsData } from "../../examples/server/src/generate/generate-metrics-data.ts";
import { createLogger } from "../../examples/server/src/logger.ts";
import { median, ms, quantile, time } from "./stats.ts";

// bench/ is not a workspace package: the workspace packages are resolved from the reference server,
// which depends on them (their built dist/, so run `pnpm build` first).
const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
const store = require("@a2a-partner/postgres-store") as typeof import("../../packages/postgres-store/dist/index.js");
const metrics = require("@a2a-partner/metrics-core") as typeof import("../../packages/metrics-core/dist/index.js");
type Database = import("../../packages/postgres-store/dist/index.js").Database;
type MetricsWindow = import("../../packages/metrics-core/dist/index.js").MetricsWindow;

const { values: args } = parseArgs({
  options: {
    events: { type: "string" },
    "10m": { type: "boolean", default: false },
    days: { type: "string", default: "90" },
    noise: { type: "string", default: "0.5" },
    runs: { type: "string", default: "31" },
    "raw-runs": { type: "string", default: "7" },
    database: { type: "string", default: "a2a_bench" },
    keep: { type: "boolean", default: false },
    json: { type: "boolean", default: false },
  },
});

const DAY_MS = 86_400_000;
const events = Number(args.events ?? (args["10m"] ? 10_000_000 : 1_000_000));
const days = Number(args.days);
const noiseShare = Number(args.noise);
const runs = Number(args.runs);
const rawRuns = Number(args["raw-runs"]);
const NOISE_WORKSPACES = 4;
if (![events, days, noiseShare, runs, rawRuns].every((n) => Number.isFinite(n) && n >= 0) || days < 1 || runs < 1) {
  throw new Error("--events, --days, --noise, --runs and --raw-runs must be non-negative numbers (days, runs ≥ 1)");
}
if (!/^[a-z_][a-z0-9_]{0,62}$/.test(args.database)) throw new Error("--database must be a plain lower-case name");

const serverUrl = process.env.DATABASE_URL_TEST ?? "postgres://postgres@127.0.0.1:5432/test";
const benchUrl = new URL(serverUrl);
benchUrl.pathname = `/${args.database}`;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function recreateDatabase(): Promise<void> {
  const admin = await store.openDatabase({ url: serverUrl, pool: { max: 1 } });
  try {
    // An identifier, checked against a strict pattern above: CREATE DATABASE takes no parameters.
    await admin.query(`drop database if exists ${args.database} with (force)`);
    await admin.query(`create database ${args.database}`);
  } finally {
    await admin.close();
  }
}

async function dropDatabase(): Promise<void> {
  const admin = await store.openDatabase({ url: serverUrl, pool: { max: 1 } });
  try {
    await admin.query(`drop database if exists ${args.database} with (force)`);
  } finally {
    await admin.close();
  }
}

/** A private workspace with an Environment and three robots. */
async function createWorkspace(db: Database, slug: string): Promise<string> {
  const ws = await db.query<{ id: string }>(
    "insert into workspaces (slug, name, visibility) values ($1, $1, 'private') returning id",
    [slug],
  );
  const workspaceId = ws.rows[0]?.id as string;
  const env = await db.query<{ id: string }>(
    "insert into environments (workspace_id, store_id, name) values ($1, 'store-001', $2) returning id",
    [workspaceId, `${slug} store`],
  );
  await db.query("insert into robots (environment_id, name) select $1, 'robot-' || g from generate_series(1, 3) g", [
    env.rows[0]?.id,
  ]);
  return workspaceId;
}

interface Row {
  window: string;
  rollup: { median: number; p95: number; min: number };
  raw: { median: number; min: number };
  ratio: number;
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  await recreateDatabase();
  const db = await store.openDatabase({ url: benchUrl.toString(), pool: { max: 4 } });
  let stopHttp: (() => Promise<void>) | undefined;
  try {
    await store.migrate(db);
    const server = (
      await db.query<{ version: string; shared_buffers: string; work_mem: string; workers: string; jit: string }>(
        `select version() as version, current_setting('shared_buffers') as shared_buffers,
                current_setting('work_mem') as work_mem, current_setting('jit') as jit,
                current_setting('max_parallel_workers_per_gather') as workers`,
      )
    ).rows[0];
    log(`machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 2 ** 30)} GiB RAM`);
    log(
      `server: ${server?.version.split(",")[0]}; shared_buffers ${server?.shared_buffers}, work_mem ${server?.work_mem}, ` +
        `jit ${server?.jit}, max_parallel_workers_per_gather ${server?.workers}`,
    );

    // Data: the bench workspace over `days` whole UTC days ending at today's midnight, noise in others.
    const end = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
    const target = await createWorkspace(db, "bench");
    const noise: string[] = [];
    for (let i = 1; i <= NOISE_WORKSPACES; i++) noise.push(await createWorkspace(db, `noise-${i}`));
    const loads: GenerateSummary[] = [];
    const progress = (slug: string) => (p: { table: string; done: number; total: number }) => {
      if (p.table === "telemetry_events" && (p.done === p.total || p.done % 2_000_000 === 0)) {
        log(`  ${slug}: ${p.table} ${p.done.toLocaleString("en")}/${p.total.toLocaleString("en")}`);
      }
    };
    log(`loading ${events.toLocaleString("en")} events into "bench" over ${days} days …`);
    loads.push(
      await generateMetricsData(
        db,
        { workspace: "bench", events, days, end, seed: 1 },
        { onProgress: progress("bench") },
      ),
    );
    const noiseEvents = Math.round((events * noiseShare) / NOISE_WORKSPACES);
    for (let i = 1; i <= NOISE_WORKSPACES; i++) {
      log(`loading ${noiseEvents.toLocaleString("en")} noise events into "noise-${i}" …`);
      loads.push(
        await generateMetricsData(
          db,
          { workspace: `noise-${i}`, events: noiseEvents, days, end, seed: 100 + i },
          { onProgress: progress(`noise-${i}`) },
        ),
      );
    }
    const loadedRows = loads.reduce((sum, l) => sum + l.rows, 0);
    const loadMs = loads.reduce((sum, l) => sum + l.ms, 0);
    log(
      `loaded ${loadedRows.toLocaleString("en")} rows in ${(loadMs / 1000).toFixed(1)} s ` +
        `(${Math.round(loadedRows / (loadMs / 1000)).toLocaleString("en")} rows/s, rollup triggers included)`,
    );
    // A steady-state database has been vacuumed and analysed by autovacuum; a fresh bulk load has not.
    const vacuumStarted = performance.now();
    await db.query("vacuum (analyze)");
    log(`vacuum (analyze): ${((performance.now() - vacuumStarted) / 1000).toFixed(1)} s`);
    const sizes = (
      await db.query<{ name: string; size: string }>(
        `select c.relname as name, pg_size_pretty(pg_total_relation_size(c.oid)) as size
         from pg_class c join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = current_schema() and c.relkind = 'r'
           and (c.relname like 'metrics_%' or c.relname in ('telemetry_events', 'workflow_executions',
                'workflow_node_executions', 'alerts'))
         order by pg_total_relation_size(c.oid) desc`,
      )
    ).rows;
    log(`sizes: ${sizes.map((s) => `${s.name} ${s.size}`).join(", ")}`);

    const at = (daysBack: number, extraMs = 0) => new Date(end.getTime() - daysBack * DAY_MS + extraMs);
    const windows: [string, MetricsWindow][] = [
      [`${days} days (full window)`, { start: at(days), end }],
      ["7 days", { start: at(7), end }],
      [
        "unaligned (~45 days)",
        { start: at(62, 13 * 3_600_000 + 37 * 60_000 + 21_123), end: at(17, 8 * 3_600_000 + 12 * 60_000 + 44_877) },
      ],
      ["open (no bounds)", { start: null, end: null }],
    ];

    const rows: Row[] = [];
    for (const [name, window] of windows) {
      const rollup = metrics.buildEventMetricsQueries(target, window);
      const raw = metrics.buildRawEventMetricsQueries(target, window);
      const run = async (q: { text: string; values: string[] }) => {
        const result = await db.query(q.text, q.values);
        return metrics.shapeEventMetrics(target, window, result.rows as never);
      };
      // Same answer both ways, or the timings mean nothing.
      const [a, b] = [await run(rollup), await run(raw)];
      if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`rollup and raw answers differ for "${name}"`);
      const rollupTimes = await time(() => run(rollup), runs, 3);
      const rawTimes = await time(() => run(raw), rawRuns, 1);
      const row: Row = {
        window: name,
        rollup: { median: median(rollupTimes), p95: quantile(rollupTimes, 0.95), min: Math.min(...rollupTimes) },
        raw: { median: median(rawTimes), min: Math.min(...rawTimes) },
        ratio: median(rawTimes) / median(rollupTimes),
      };
      rows.push(row);
      log(
        `  ${name}: rollup ${ms(row.rollup.median)} ms, raw ${ms(row.raw.median)} ms, ×${row.ratio.toFixed(0)}` +
          ` (telemetry total ${a.telemetry.total.toLocaleString("en")})`,
      );
    }

    // The whole endpoint over HTTP: token check, workspace + access query, metrics query, JSON.
    const { rows: userRows } = await db.query<{ id: string }>(
      "insert into users (email) values ('bench@example.com') returning id",
    );
    await db.query(
      "insert into memberships (workspace_id, user_id, role, status) values ($1, $2, 'member', 'active')",
      [target, userRows[0]?.id],
    );
    const token = await createToken(db, { kind: "user", userId: userRows[0]?.id as string });
    const app = createApp({ db, config: loadConfig({}), logger: createLogger("silent") });
    const http = createServer(app.app);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    stopHttp = async () => {
      await app.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    };
    const { port } = http.address() as AddressInfo;
    const full = windows[0]?.[1] as MetricsWindow;
    const url =
      `http://127.0.0.1:${port}/api/v1/metrics/events/bench?start_timestamp=${full.start?.toISOString()}` +
      `&end_timestamp=${full.end?.toISOString()}`;
    const httpTimes = await time(
      async () => {
        const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
        if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
        await res.arrayBuffer();
      },
      runs,
      3,
    );
    const bytes = (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).arrayBuffer())
      .byteLength;

    const target0 = loads[0] as GenerateSummary;
    const lines = [
      "",
      `Metrics bench: ${target0.inserted.telemetry_events.toLocaleString("en")} telemetry events, ` +
        `${target0.inserted.workflow_executions.toLocaleString("en")} workflow executions, ` +
        `${target0.inserted.workflow_node_executions.toLocaleString("en")} node executions, ` +
        `${target0.inserted.alerts.toLocaleString("en")} alerts over ${days} days in "bench"; ` +
        `${(loadedRows - target0.rows).toLocaleString("en")} noise rows in ${NOISE_WORKSPACES} other workspaces.`,
      `Medians of ${runs} rollup runs and ${rawRuns} raw runs (after warm-up), one query = the endpoint's single statement + shaping.`,
      "",
      "| window | rollup median (ms) | rollup p95 (ms) | raw GROUP BY median (ms) | raw / rollup |",
      "|---|---:|---:|---:|---:|",
      ...rows.map(
        (r) =>
          `| ${r.window} | ${ms(r.rollup.median)} | ${ms(r.rollup.p95)} | ${ms(r.raw.median)} | ${r.ratio.toFixed(0)}× |`,
      ),
      "",
      `HTTP GET ${days}-day window (auth + access + query + JSON, ${Math.round(bytes / 1024)} KiB): ` +
        `median ${ms(median(httpTimes))} ms, p95 ${ms(quantile(httpTimes, 0.95))} ms`,
      `Load: ${loadedRows.toLocaleString("en")} rows in ${(loadMs / 1000).toFixed(1)} s; total bench time ${((Date.now() - startedAt) / 1000).toFixed(0)} s.`,
      "",
    ];
    process.stdout.write(lines.join("\n"));
    if (args.json) {
      process.stdout.write(
        `${JSON.stringify({ events, days, rows, http: { median: median(httpTimes), p95: quantile(httpTimes, 0.95) }, loads })}\n`,
      );
    }
  } finally {
    await stopHttp?.();
    await db.close();
    if (!args.keep) await dropDatabase();
    else log(`kept database ${args.database}`);
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
