/**
 * The A2A load benchmark (issue #6): our reference server on the real PostgreSQL against a small server
 * built on the official @a2a-js/sdk, on this machine, in one run. For each server: GetTask requests/s,
 * time to the first SSE event of a new task, tasks/s sustained (started and followed to `completed`),
 * and memory per idle open stream at 1,000 and 5,000 concurrent streams. Prints a table with every
 * figure, the ratios and whether each target is met.
 *
 *   pnpm bench:a2a                                          # about 3–4 minutes
 *   pnpm bench:a2a --duration 30 --streams 1000,5000,10000 --stream-targets ours,sdk,sdk-pg
 *   pnpm bench:a2a --targets ours,sdk --subscribe-streams 0 --json
 *   pnpm bench:a2a --targets ours --stream-targets "" --phases gettask --cpu-prof /tmp/prof
 *                                                # a V8 CPU profile of the GetTask load (profile-summary.ts)
 *
 * Targets: `ours` (src/cli.ts serve on a PostgreSQL database of its own, seeded with the CLI, dropped at
 * the end; RATE_LIMIT_PER_SECOND=0, MAX_STREAMS_PER_TOKEN=0), `sdk` (bench/a2a/sdk-server.ts with the
 * SDK's default InMemoryTaskStore), `sdk-pg` (the same with the SDK's DatabaseTaskStore on PostgreSQL).
 * DATABASE_URL_TEST names the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/test).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, totalmem } from "node:os";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { POSTGRES_URL } from "../../examples/server/test/support/backends.ts";
import { median, ms, quantile } from "../metrics/stats.ts";
import { createPool, type Endpoint, getTaskThroughput, sustainedTasks, timeToFirstEvent } from "./load.ts";
import { cpuInWindow, sleep } from "./proc.ts";
import { type LoadResult, type Result, resultTable, targetVerdicts } from "./report.ts";
import { measureStreams } from "./streams.ts";
import { createTarget, STEP_MS, type Target, type TargetId } from "./targets.ts";

const { values: args } = parseArgs({
  options: {
    targets: { type: "string", default: "ours,sdk,sdk-pg" },
    "stream-targets": { type: "string", default: "ours,sdk" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    concurrency: { type: "string", default: "32" },
    starts: { type: "string", default: "200" },
    streams: { type: "string", default: "1000,5000" },
    "subscribe-streams": { type: "string", default: "5000" },
    "open-parallel": { type: "string", default: "64" },
    "idle-cpu-seconds": { type: "string", default: "5" },
    phases: { type: "string", default: "tasks,gettask" },
    "cpu-prof": { type: "string" },
    json: { type: "boolean", default: false },
  },
});

const TARGET_IDS: TargetId[] = ["ours", "ours-lean", "sdk", "sdk-pg"];
const list = (value: string) =>
  value
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
const counts = (value: string) =>
  list(value)
    .map(Number)
    .filter((n) => n !== 0);
const targets = list(args.targets) as TargetId[];
const streamTargets = list(args["stream-targets"]) as TargetId[];
const durationMs = Number(args.duration) * 1000;
const warmupMs = Number(args.warmup) * 1000;
const concurrency = Number(args.concurrency);
const starts = Number(args.starts);
const streamCounts = counts(args.streams);
const subscribeCounts = counts(args["subscribe-streams"]);
const openParallel = Number(args["open-parallel"]);
const idleCpuMs = Number(args["idle-cpu-seconds"]) * 1000;
// The first-event phase always runs: its tasks are the ones GetTask polls.
const phases = new Set(list(args.phases));

function validate(): void {
  const known = (ids: string[]) => ids.every((t) => (TARGET_IDS as string[]).includes(t));
  if (!known(targets) || !known(streamTargets)) throw new Error(`targets are ${TARGET_IDS.join(", ")}`);
  if (![...phases].every((p) => p === "tasks" || p === "gettask")) throw new Error("--phases: tasks, gettask");
  const numbers = [durationMs, warmupMs, concurrency, starts, openParallel, idleCpuMs];
  if (!numbers.every((n) => Number.isFinite(n) && n >= 0) || durationMs === 0 || concurrency < 1 || starts < 1) {
    throw new Error("--duration, --concurrency and --starts must be positive numbers, the others non-negative");
  }
  for (const series of [streamCounts, subscribeCounts]) {
    if (series.some((n, i) => !Number.isInteger(n) || n < 1 || (i > 0 && n <= (series[i - 1] as number)))) {
      throw new Error("--streams and --subscribe-streams are ascending positive integers (0 to skip)");
    }
  }
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function measureLoad(target: Target): Promise<LoadResult> {
  const server = await target.start("load", args["cpu-prof"] ? { cpuProfileDir: args["cpu-prof"] } : {});
  const pool = createPool(server.origin, concurrency + 2);
  const endpoint: Endpoint = { origin: server.origin, path: target.path, dialect: target.dialect };
  try {
    log(`  first event: ${starts} sequential starts (after 20 warm-up), each followed to its end …`);
    const ttfe = await timeToFirstEvent(pool, endpoint, { starts, warmups: 20 });
    if (ttfe.completed !== starts) throw new Error(`only ${ttfe.completed} of ${starts} tasks completed`);
    log(`    median ${ms(median(ttfe.ms))} ms, p95 ${ms(quantile(ttfe.ms, 0.95))} ms`);

    const window = `${concurrency} concurrent clients, ${durationMs / 1000} s after ${warmupMs / 1000} s warm-up`;
    // GetTask before the write-heavy tasks/s phase, whose dead rows and autovacuum would weigh on it.
    let getTask: LoadResult["getTask"] = { perSecond: NaN, p50: NaN, p99: NaN, errors: 0, cpuUsPerRequest: NaN };
    if (phases.has("gettask")) {
      log(`  GetTask: ${window}, on ${ttfe.taskIds.length} completed tasks …`);
      const [run, cpu] = await Promise.all([
        getTaskThroughput(pool, endpoint, ttfe.taskIds, { concurrency, warmupMs, durationMs }),
        cpuInWindow(server.pid, warmupMs, durationMs),
      ]);
      getTask = {
        perSecond: run.perSecond,
        p50: quantile(run.latencies, 0.5),
        p99: quantile(run.latencies, 0.99),
        errors: run.errors,
        cpuUsPerRequest: (cpu / run.requests) * 1e6,
      };
      log(
        `    ${run.perSecond.toFixed(0)} req/s, p50 ${ms(getTask.p50)} ms, ` +
          `server CPU ${getTask.cpuUsPerRequest.toFixed(0)} µs per request (${run.errors} errors)`,
      );
    }
    let tasks: LoadResult["tasks"] = { perSecond: NaN, completed: 0, failures: 0, medianMs: NaN, cpuMsPerTask: NaN };
    if (phases.has("tasks")) {
      log(`  tasks/s: ${window} …`);
      const [run, cpu] = await Promise.all([
        sustainedTasks(pool, endpoint, { concurrency, warmupMs, durationMs }),
        cpuInWindow(server.pid, warmupMs, durationMs),
      ]);
      log(`    ${run.perSecond.toFixed(0)} tasks/s (${run.completed} completed, ${run.failures} failures)`);
      tasks = {
        perSecond: run.perSecond,
        completed: run.completed,
        failures: run.failures,
        medianMs: median(run.durations),
        cpuMsPerTask: (cpu / run.completed) * 1000,
      };
    }
    return { ttfe: { median: median(ttfe.ms), p95: quantile(ttfe.ms, 0.95), n: ttfe.ms.length }, tasks, getTask };
  } finally {
    await pool.close().catch(() => undefined);
    // A profile is written on a clean exit only.
    await server.kill(args["cpu-prof"] ? "SIGTERM" : "SIGKILL");
  }
}

function sdkVersion(): string {
  const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
  // The exports map hides package.json; the main entry sits in dist/.
  const sdkPackage = new URL("../package.json", pathToFileURL(require.resolve("@a2a-js/sdk")));
  return (JSON.parse(readFileSync(sdkPackage, "utf8")) as { version: string }).version;
}

async function postgresVersion(): Promise<string> {
  const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
  const pg = require("pg") as typeof import("pg");
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string }>("select current_setting('server_version') as version");
    return rows[0]?.version ?? "?";
  } finally {
    await client.end();
  }
}

async function main(): Promise<void> {
  validate();
  const started = Date.now();
  const machine =
    `${cpus().length} × ${cpus()[0]?.model.trim() ?? "cpu"}, ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, ` +
    `Node ${process.version}, PostgreSQL ${await postgresVersion()}, @a2a-js/sdk ${sdkVersion()}`;
  log(
    `machine: ${machine}; load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}`,
  );
  const results: Result[] = [];
  for (const id of targets) {
    log(`\n${id}:`);
    const target = await createTarget(id);
    try {
      const load = await measureLoad(target);
      const streams: Result["streams"] = {};
      if (streamTargets.includes(id)) {
        const options = { openParallel, idleCpuMs, log };
        if (streamCounts.length > 0)
          streams.task = await measureStreams(target, "task", { ...options, counts: streamCounts });
        if (subscribeCounts.length > 0) {
          streams.subscribe = await measureStreams(target, "subscribe", { ...options, counts: subscribeCounts });
        }
      }
      results.push({ target: id, label: target.label, store: target.store, load, streams });
    } finally {
      await target.dispose();
    }
    await sleep(500);
  }
  const lines = [
    "",
    `A2A bench on ${machine}; load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}.`,
    `Servers (each a child process on this machine): ${results.map((r) => `${r.label} = ${r.store}`).join("; ")}.`,
    `Load from this process (undici Pools, keep-alive). GetTask and tasks/s: ${concurrency} concurrent clients, ` +
      `${durationMs / 1000} s after ${warmupMs / 1000} s warm-up; first event: ${starts} sequential starts; ` +
      `robot step ${STEP_MS.load} ms, 5 steps per task.`,
    `Idle streams: robot step ${Number(STEP_MS.streams) / 60_000} min (tasks stay working); memory of the server ` +
      `process minus its baseline (200 working tasks), divided by the streams held.`,
    "",
    resultTable(results, streamCounts, subscribeCounts),
    "",
    "Targets:",
    ...targetVerdicts(results),
    "",
    `Total bench time ${((Date.now() - started) / 1000).toFixed(0)} s.`,
    "",
  ];
  process.stdout.write(lines.join("\n"));
  if (args.json) process.stdout.write(`${JSON.stringify({ machine, results })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
