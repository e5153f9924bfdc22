/**
 * The metrics benchmark: on the real PostgreSQL, in a database of its own (created and dropped
 * here), loads N telemetry events (1M by default, 10M with --10m) plus proportional workflow runs and
 * alerts over 90 days for one workspace, and noise in four others, with the same generator as
 * `pnpm cli generate`. Then it times the endpoint's query (daily/hourly rollups) against a raw GROUP BY
 * over the same rows for several windows, checks both give the same answer, and times the HTTP endpoint.
 * Last, what the rollup triggers cost at write time (ingest.ts): the same generated records loaded into
 * two more fresh databases, one with the triggers and one with them disabled, at each statement size of
 * --ingest-batch; it prints both insert throughputs, the overhead and the verdict on "keeping the rollups
 * exact costs ≤ 5 % of insert throughput".
 *
 *   pnpm bench:metrics                  # 1M events
 *   pnpm bench:metrics --10m            # 10M events
 *   pnpm bench:metrics --events 3e6 --runs 51 --raw-runs 5 --keep
 *   pnpm bench:metrics --events 2e5 --ingest-events 1e5 --ingest-rounds 2 --ingest-batch 250000
 *
 * --pending-events N (default 20,000; 0 skips): after the timings above, N more events in statements of
 * 1,000 without folding their rollup deltas, and the 90-day query timed with that backlog, the fold, and
 * the query again.
 *
 * Ingest flags: --ingest-events N (telemetry events per load, plus proportional executions and alerts;
 * default 200,000; 0 skips the ingest measurement), --ingest-rounds R (loads into each database, 4),
 * --ingest-batch S,S… (telemetry events per INSERT statement, the generator's batch size: 250000 = its
 * bulk default, 1000 = smaller statements like a live writer's; default both).
 *
 * DATABASE_URL_TEST (default postgres://postgres@127.0.0.1:5432/test) names the server; the bench
 * connects to it to create and drop the database `a2a_bench` (--database to change) and, for the ingest
 * comparison, `<database>_rollups_on` and `<database>_rollups_off`.
 */
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { cpus, totalmem } from "node:os";
import { parseArgs } from "node:util";
import { createPinoLogger } from "@a2a-partner/a2a-core/node-runtime";
import { createApp } from "@a2a-partner/example-server/app";
import { createToken } from "@a2a-partner/example-server/auth/tokens";
import { loadConfig } from "@a2a-partner/example-server/config";
import { migrateReferenceSchema } from "@a2a-partner/example-server/migrations";
import type { GenerateSummary } from "@a2a-partner/metrics-generator";
import { generateMetrics } from "./generate.ts";
import { type IngestRun, measureIngest } from "./ingest.ts";
import { measurePendingDeltas, type PendingDeltasRun } from "./pending-deltas.ts";
import { compareWithRecorded, readRecorded } from "./recorded.ts";
import { createWorkspace, DATABASE_NAME, databaseUrl, dropDatabase, recreateDatabase, store } from "./setup.ts";
import { median, ms, quantile, time, timeInterleaved } from "./stats.ts";

// The workspace packages resolve from the reference server (setup.ts): their built dist/.
const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
const metrics = require("@a2a-partner/metrics-core") as typeof import("../../packages/metrics-core/dist/index.js");
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
    "pending-events": { type: "string", default: "20000" },
    "ingest-events": { type: "string", default: "200000" },
    "ingest-rounds": { type: "string", default: "4" },
    "ingest-batch": { type: "string", default: "250000,1000" },
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
const pendingEvents = Number(args["pending-events"]);
const ingestEvents = Number(args["ingest-events"]);
const ingestRounds = Number(args["ingest-rounds"]);
const ingestBatches = args["ingest-batch"]
  .split(",")
  .map((b) => b.trim())
  .filter(Boolean)
  .map(Number);
/** The ingest overhead allowed for keeping the rollups exact (docs/performance.md, Metrics). */
const INGEST_OVERHEAD_PERCENT = 5;
if (![events, days, noiseShare, runs, rawRuns].every((n) => Number.isFinite(n) && n >= 0) || days < 1 || runs < 1) {
  throw new Error("--events, --days, --noise, --runs and --raw-runs must be non-negative numbers (days, runs ≥ 1)");
}
if (
  !Number.isInteger(pendingEvents) ||
  pendingEvents < 0 ||
  !Number.isInteger(ingestEvents) ||
  ingestEvents < 0 ||
  !Number.isInteger(ingestRounds) ||
  ingestRounds < 1 ||
  ingestBatches.length === 0 ||
  !ingestBatches.every((b) => Number.isInteger(b) && b >= 1)
) {
  throw new Error(
    "--pending-events and --ingest-events ≥ 0 (0 skips), --ingest-rounds ≥ 1 and --ingest-batch positive integers",
  );
}
const ingestDatabases = {
  withTriggers: `${args.database}_rollups_on`,
  withoutTriggers: `${args.database}_rollups_off`,
};
if (
  ![args.database, ingestDatabases.withTriggers, ingestDatabases.withoutTriggers].every((d) => DATABASE_NAME.test(d))
) {
  throw new Error("--database must be a plain lower-case name of at most 51 characters");
}

const serverUrl = process.env.DATABASE_URL_TEST ?? "postgres://postgres@127.0.0.1:5432/test";

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

interface Row {
  window: string;
  /** The statement sent unnamed: parsed and planned on every call (what the figures recorded measure). */
  rollup: { median: number; p95: number; min: number };
  /** As the endpoint sends it: a named statement (queryEventMetrics' namedStatement), timed interleaved. */
  named: { median: number; p95: number };
  /** PostgreSQL's planning time for one unnamed call (EXPLAIN (SUMMARY) without ANALYZE), median. */
  planningMs: number;
  raw: { median: number; min: number };
  ratio: number;
}

/** Calls timed for the planning time of one window (EXPLAIN plans only, so they are quick). */
const PLANNING_RUNS = 15;

async function main(): Promise<void> {
  const startedAt = Date.now();
  await recreateDatabase(serverUrl, args.database);
  const db = await store.openDatabase({ url: databaseUrl(serverUrl, args.database), pool: { max: 4 } });
  let stopHttp: (() => Promise<void>) | undefined;
  try {
    await migrateReferenceSchema(db);
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
      await generateMetrics(db, { workspace: "bench", events, days, end, seed: 1 }, { onProgress: progress("bench") }),
    );
    const noiseEvents = Math.round((events * noiseShare) / NOISE_WORKSPACES);
    for (let i = 1; i <= NOISE_WORKSPACES; i++) {
      log(`loading ${noiseEvents.toLocaleString("en")} noise events into "noise-${i}" …`);
      loads.push(
        await generateMetrics(
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
      // Unnamed and named in turn. Warm-ups past five: PostgreSQL plans a named statement afresh for its
      // first five executions on a connection and only then may keep a generic plan.
      const [rollupTimes, namedTimes] = (await timeInterleaved(
        [() => run(rollup), () => metrics.queryEventMetrics(db, target, window, { namedStatement: true })],
        runs,
        8,
      )) as [number[], number[]];
      const planning: number[] = [];
      for (let i = 0; i < PLANNING_RUNS; i++) {
        const plan = await db.query<{ "QUERY PLAN": string }>(`explain (summary) ${rollup.text}`, rollup.values);
        const line = plan.rows.map((r) => r["QUERY PLAN"]).find((l) => l.startsWith("Planning Time:"));
        planning.push(Number(/([\d.]+) ms/.exec(line ?? "")?.[1]));
      }
      const rawTimes = await time(() => run(raw), rawRuns, 1);
      const row: Row = {
        window: name,
        rollup: { median: median(rollupTimes), p95: quantile(rollupTimes, 0.95), min: Math.min(...rollupTimes) },
        named: { median: median(namedTimes), p95: quantile(namedTimes, 0.95) },
        planningMs: median(planning),
        raw: { median: median(rawTimes), min: Math.min(...rawTimes) },
        ratio: median(rawTimes) / median(rollupTimes),
      };
      rows.push(row);
      log(
        `  ${name}: rollup ${ms(row.rollup.median)} ms (named ${ms(row.named.median)} ms, planning ` +
          `${ms(row.planningMs)} ms), raw ${ms(row.raw.median)} ms, ×${row.ratio.toFixed(0)}` +
          ` (telemetry total ${a.telemetry.total.toLocaleString("en")})`,
      );
    }

    const comparison = compareWithRecorded(
      readRecorded(),
      events,
      rows.map((r) => ({ window: r.window, median: r.rollup.median })),
    );

    // The same query with rollup deltas not folded yet (before the HTTP app starts its compaction timer).
    let pending: PendingDeltasRun | undefined;
    if (pendingEvents > 0) {
      log(`pending deltas: ${pendingEvents.toLocaleString("en")} more events in statements of 1,000, not folded …`);
      pending = await measurePendingDeltas({
        db,
        workspace: { id: target, slug: "bench" },
        window: windows[0]?.[1] as MetricsWindow,
        events: pendingEvents,
        days,
        end,
        runs,
      });
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
    const app = createApp({
      db,
      config: loadConfig({}),
      logger: createPinoLogger({ level: "silent", format: "json", service: "bench" }),
    });
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

    // Write cost of the rollups, in databases of their own (the bench database keeps its triggers).
    let ingest: IngestRun[] = [];
    if (ingestEvents > 0) {
      log(
        `ingest: ${ingestEvents.toLocaleString("en")} events per load, ${ingestRounds} rounds, ` +
          `into ${ingestDatabases.withTriggers} (triggers) and ${ingestDatabases.withoutTriggers} (none) …`,
      );
      ingest = await measureIngest({
        serverUrl,
        databases: ingestDatabases,
        events: ingestEvents,
        days,
        end,
        rounds: ingestRounds,
        batchSizes: ingestBatches,
        keep: args.keep,
        log,
      });
    }
    const ingestVerdicts = ingest.map((run) => ({
      batchSize: run.batchSize,
      met: run.overheadPercent <= INGEST_OVERHEAD_PERCENT,
      overheadPercent: run.overheadPercent,
      thresholdPercent: INGEST_OVERHEAD_PERCENT,
    }));

    const target0 = loads[0] as GenerateSummary;
    const lines = [
      "",
      `Metrics bench: ${target0.inserted.telemetry_events.toLocaleString("en")} telemetry events, ` +
        `${target0.inserted.workflow_executions.toLocaleString("en")} workflow executions, ` +
        `${target0.inserted.workflow_node_executions.toLocaleString("en")} node executions, ` +
        `${target0.inserted.alerts.toLocaleString("en")} alerts over ${days} days in "bench"; ` +
        `${(loadedRows - target0.rows).toLocaleString("en")} noise rows in ${NOISE_WORKSPACES} other workspaces.`,
      `Medians of ${runs} rollup runs and ${rawRuns} raw runs (after warm-up), one query = the endpoint's single statement + shaping; ` +
        `"named" = the same as the endpoint sends it (a named statement), interleaved with the unnamed runs; ` +
        `"planning" = PostgreSQL's planning time of one unnamed call (median of ${PLANNING_RUNS}).`,
      "",
      "| window | rollup median (ms) | rollup p95 (ms) | named median (ms) | planning (ms) | raw GROUP BY median (ms) | raw / rollup |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...rows.map(
        (r) =>
          `| ${r.window} | ${ms(r.rollup.median)} | ${ms(r.rollup.p95)} | ${ms(r.named.median)} | ${ms(r.planningMs)} | ` +
          `${ms(r.raw.median)} | ${r.ratio.toFixed(0)}× |`,
      ),
      "",
      ...comparisonLines(comparison),
      "",
      `HTTP GET ${days}-day window (auth + access + query + JSON, ${Math.round(bytes / 1024)} KiB): ` +
        `median ${ms(median(httpTimes))} ms, p95 ${ms(quantile(httpTimes, 0.95))} ms`,
      `Load: ${loadedRows.toLocaleString("en")} rows in ${(loadMs / 1000).toFixed(1)} s; total bench time ${((Date.now() - startedAt) / 1000).toFixed(0)} s.`,
      ...(pending
        ? [
            `${days}-day query with ${pending.deltaRows.toLocaleString("en")} delta rows not folded yet ` +
              `(${pending.events.toLocaleString("en")} more events in statements of 1,000): median ` +
              `${ms(pending.pending.median)} ms, p95 ${ms(pending.pending.p95)} ms; folding them took ` +
              `${ms(pending.foldMs)} ms; after: median ${ms(pending.folded.median)} ms, p95 ${ms(pending.folded.p95)} ms.`,
          ]
        : []),
      "",
      ...ingestLines(ingest),
    ];
    process.stdout.write(lines.join("\n"));
    // A window slower than recorded fails the run (after printing everything), so a script or CI notices.
    if (comparison.windows.some((w) => w.flagged)) process.exitCode = 2;
    if (args.json) {
      process.stdout.write(
        `${JSON.stringify({
          events,
          days,
          rows,
          comparison,
          http: { median: median(httpTimes), p95: quantile(httpTimes, 0.95) },
          loads,
          pending,
          ingest: { events: ingestEvents, rounds: ingestRounds, runs: ingest, verdicts: ingestVerdicts },
        })}\n`,
      );
    }
  } finally {
    await stopHttp?.();
    await db.close();
    if (!args.keep) await dropDatabase(serverUrl, args.database);
    else log(`kept database ${args.database}`);
  }
}

/** Each window's rollup median against the figure docs/performance.md records (recorded.json). */
function comparisonLines(comparison: ReturnType<typeof compareWithRecorded>): string[] {
  if (comparison.size === undefined) {
    return ["Recorded figures (bench/metrics/recorded.json): none for this many events; no comparison."];
  }
  return [
    `Against the recorded ${comparison.size} figures (bench/metrics/recorded.json = docs/performance.md), ` +
      `flagged when more than ${comparison.slowerThan}× slower:`,
    ...comparison.windows.map((w) =>
      w.recorded === undefined || w.ratio === undefined
        ? `- ${w.window}: ${ms(w.median)} ms, nothing recorded`
        : `- ${w.window}: ${ms(w.median)} ms vs ${ms(w.recorded.median)} ms recorded = ${w.ratio.toFixed(2)}×` +
          (w.flagged ? ` — SLOWER THAN RECORDED (> ${comparison.slowerThan}×)` : " — ok"),
    ),
  ];
}

/** The ingest table and one verdict per statement size (nothing when --ingest-events is 0). */
function ingestLines(runs: IngestRun[]): string[] {
  if (runs.length === 0) return [];
  const whole = (n: number) => Math.round(n).toLocaleString("en");
  const pct = (n: number) => `${n.toFixed(1)} %`;
  const rowsPerLoad = runs[0] ? runs[0].withTriggers.rows / ingestRounds : 0;
  return [
    `Ingest with and without the rollup triggers: ${ingestEvents.toLocaleString("en")} telemetry events per load ` +
      `(${whole(rowsPerLoad)} rows with the executions, node executions and alerts), loaded ${ingestRounds} times ` +
      `into each of two fresh databases, one with the triggers and one with them disabled (rounds alternate which ` +
      `goes first; CHECKPOINT before each load). Statement size = telemetry events per INSERT … SELECT. ` +
      `The triggers append deltas; folding them into the rollups (a server does it in the background) is ` +
      `timed after each load on its own, and "incl. fold" counts it as if the load had waited for it.`,
    "",
    "| rows per statement | statements per load | with triggers (rows/s) | without (rows/s) | overhead | per round | fold per load (ms) | overhead incl. fold |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ...runs.map(
      (r) =>
        `| ${whole(r.batchSize)} | ${whole(r.statementsPerLoad)} | ${whole(r.withTriggers.rowsPerSecond)} | ` +
        `${whole(r.withoutTriggers.rowsPerSecond)} | ${pct(r.overheadPercent)} | ` +
        `${r.roundOverheadPercent.map((o) => o.toFixed(1)).join(", ")} % | ${whole(r.foldMs / ingestRounds)} | ` +
        `${pct(r.overheadWithFoldPercent)} |`,
    ),
    "",
    `Target: keeping the rollups exact costs ≤ ${INGEST_OVERHEAD_PERCENT} % of insert throughput:`,
    ...runs.map(
      (r) =>
        `- ${whole(r.batchSize)} rows per statement: ${r.overheadPercent <= INGEST_OVERHEAD_PERCENT ? "MET" : "NOT MET"} — ` +
        `${pct(r.overheadPercent)} (${whole(r.withTriggers.rowsPerSecond)} vs ${whole(r.withoutTriggers.rowsPerSecond)} rows/s)`,
    ),
    "",
  ];
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
