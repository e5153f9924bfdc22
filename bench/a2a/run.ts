/**
 * The A2A load benchmark: our reference server against a small server built on the official
 * @a2a-js/sdk, on this machine, in one run. For each server: GetTask requests/s, time to the first SSE
 * event of a new task, tasks/s sustained (started and followed to `completed`), blocking SendMessage
 * calls/s to `completed` (send-message.ts: for ours an agent on the core with SendMessage on, on a store
 * of the same kind, since the reference server answers -32004 by contract), and memory and idle CPU
 * per idle open stream at 1,000 and 5,000 concurrent streams; for two instances of our server on one
 * database, tasks/s against one instance; and the same over A2A's gRPC binding (`ours-grpc`, `sdk-grpc`). Prints a table with every figure, the ratios, the scale-out
 * figure and a verdict on each performance target in docs/performance.md (judged against `sdk` of the same run,
 * on the median of the rounds' ratios), with the first event's floors beside its verdict: the SDK's first
 * event plus one commit of a start's size on the same PostgreSQL server (commit-floor.ts), and the first
 * event of the least a durable server does (`floor-durable`), which also stands beside the tasks/s verdict
 * (and `floor-durable-embedded` beside the embedded store's).
 *
 *   pnpm bench:a2a                                          # about 20 minutes (1,194 s, 2026-12-07, with both floors)
 *   pnpm bench:a2a --duration 30 --streams 1000,5000,10000 --stream-targets ours,sdk,sdk-pg
 *   pnpm bench:a2a --targets ours,sdk --subscribe-streams 0 --json
 *   pnpm bench:a2a --targets ours-embedded,sdk --stream-targets "" --duration 3 --warmup 1 --starts 30
 *   pnpm bench:a2a --targets ours,ours-2x --stream-targets "" --phases tasks    # scale-out only
 *   pnpm bench:a2a --targets ours,ours-grpc,sdk-grpc --stream-targets ""          # gRPC vs JSON-RPC, vs the SDK
 *   pnpm bench:a2a --targets ours --stream-targets "" --phases gettask --cpu-prof /tmp/prof
 *                                                # a V8 CPU profile of the GetTask load (profile-summary.ts)
 *
 * Targets (--targets, default ours,ours-grpc,ours-embedded,ours-2x,sdk,sdk-grpc,sdk-pg,floor-durable,floor-durable-embedded;
 * --stream-targets, default ours,ours-grpc,sdk,sdk-grpc):
 * `ours` (src/cli.ts serve on a PostgreSQL database of its own, seeded with the CLI, dropped at the end;
 * RATE_LIMIT_PER_SECOND=0, MAX_STREAMS_PER_TOKEN=0), `ours-embedded` (the same server as `pnpm start`
 * ships it: no DATABASE_URL, a fresh PGlite DATA_DIR in a temp folder, seeded with the CLI first),
 * `ours-rest` (the same server as `ours`, loaded over its HTTP+JSON binding: GetTask a GET of
 * `…/tasks/{id}`, starts a POST of `…/message:stream`; judged against `ours`, within 10 %; load phases only),
 * `ours-grpc` (the same server as `ours` started with GRPC_PORT, loaded over A2A's gRPC binding with
 * @grpc/grpc-js on one channel, grpc-load.ts: GetTask, first message of SendStreamingMessage, tasks/s; judged
 * against `ours`: GetTask ≥ JSON-RPC's, first event within 10 %; load phases only), `sdk-grpc` (sdk-server.ts
 * serving the same in-memory handler with the SDK's `@a2a-js/sdk/server/grpc` service, loaded the same way;
 * `ours-grpc` is judged against it as `ours` is against `sdk`),
 * `ours-2x` (two `serve` processes on one PostgreSQL database, the load clients split half/half; tasks/s
 * only, compared with `ours`; not a stream target), `ours-lean` (investigation: ours without the fleet),
 * `ours-otel` (ours with the OpenTelemetry SDK on: a Prometheus reader, every span exported over OTLP
 * to a receiver in the bench process; compare its GetTask and tasks/s with `ours`), `ours-otel-sampled`
 * (the same with 10 % of traces sampled, a production setting), `ours-otel-metrics` (metrics only: the
 * Prometheus reader, no traces),
 * `sdk` (bench/a2a/sdk-server.ts with the SDK's default InMemoryTaskStore), `sdk-pg` (the same with the
 * SDK's DatabaseTaskStore on PostgreSQL), `floor-durable` (durable-floor-server.ts: bare node:http that
 * group-commits each event on PostgreSQL before its frame and does nothing else; first event and tasks/s
 * only, printed as the floors beside our verdicts), `floor-durable-embedded` (the same on the embedded
 * store, PGlite in a worker thread as `pnpm start` opens it, printed beside the embedded store's verdicts).
 *
 * Other flags: --duration and --warmup (seconds of each load window), --concurrency (clients; split over
 * the instances of `ours-2x`), --starts (sequential first-event starts), --streams and
 * --subscribe-streams (ascending counts, 0 to skip), --open-parallel, --idle-cpu-seconds, --phases
 * (tasks, gettask, send-message; the first-event phase runs on single-instance targets with tasks or
 * gettask; send-message on ours, ours-embedded, sdk and sdk-pg), --rounds (default 3: the load phases
 * that many times, the targets interleaved, the order rotated each round; figures are medians of the
 * rounds, ratios the median of the rounds' ratios with their spread, marked ≈ when it holds 1; the idle
 * streams are measured once), --cpu-prof <dir>, --node-options (more NODE_OPTIONS for the load servers,
 * e.g. an `--import` of an investigation's hook), --json (one more line: every figure, the scale-out rows and the verdicts).
 * DATABASE_URL_TEST names the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/test).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { cpus, loadavg, totalmem } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { POSTGRES_URL } from "../../examples/server/test/support/backends.ts";
import { median, ms, quantile } from "../metrics/stats.ts";
import { startAnalyzeStandIn } from "./analyze-stand-in.ts";
import { type CommitFloor, commitFloor } from "./commit-floor.ts";
import { GrpcLoadClient, grpcGetTaskThroughput, grpcSustainedTasks, grpcTimeToFirstEvent } from "./grpc-load.ts";
import { createPool, type Endpoint, getTaskThroughput, type Lane, sustainedTasks, timeToFirstEvent } from "./load.ts";
import { cpuInWindow } from "./proc.ts";
import {
  type LoadResult,
  medianLoad,
  type Result,
  resultTable,
  scaleOut,
  scaleOutLines,
  targetVerdicts,
  verdictLines,
} from "./report.ts";
import { blockingSendMessages, checkSendMessage } from "./send-message.ts";
import { measureStreams } from "./streams.ts";
import { createTarget, type RunningServer, STEP_MS, type StartOptions, type Target, type TargetId } from "./targets.ts";

const { values: args } = parseArgs({
  options: {
    targets: {
      type: "string",
      default: "ours,ours-grpc,ours-embedded,ours-2x,sdk,sdk-grpc,sdk-pg,floor-durable,floor-durable-embedded",
    },
    "stream-targets": { type: "string", default: "ours,ours-grpc,sdk,sdk-grpc" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    concurrency: { type: "string", default: "32" },
    starts: { type: "string", default: "200" },
    streams: { type: "string", default: "1000,5000" },
    "subscribe-streams": { type: "string", default: "5000" },
    "open-parallel": { type: "string", default: "64" },
    // Three lease renewals (every 10 s by default): a shorter window may hold none of them, or one, and so
    // reads a different figure from one run to the next.
    "idle-cpu-seconds": { type: "string", default: "30" },
    phases: { type: "string", default: "tasks,gettask,send-message" },
    // Load phases run this many times, the targets interleaved (the order rotated each round): each
    // figure is the median of the rounds, each ratio the median of the rounds' ratios with their spread.
    rounds: { type: "string", default: "3" },
    "cpu-prof": { type: "string" },
    "node-options": { type: "string", default: "" },
    json: { type: "boolean", default: false },
  },
});

/** How the load phases start their servers: profiled (--cpu-prof), with more NODE_OPTIONS (--node-options). */
const loadServerOptions: StartOptions = {
  ...(args["cpu-prof"] ? { cpuProfileDir: args["cpu-prof"] } : {}),
  nodeOptions: args["node-options"].split(" ").filter(Boolean),
};

const TARGET_IDS: TargetId[] = [
  "ours",
  "ours-rest",
  "ours-grpc",
  "ours-grpc-base",
  "ours-embedded",
  "ours-2x",
  "ours-lean",
  "ours-otel",
  "ours-otel-sampled",
  "ours-otel-metrics",
  "ours-v8-heap",
  // The server of the checkout A2A_BENCH_BASE names: to profile it the same way (--cpu-prof).
  "ours-base",
  "ours-embedded-base",
  "sdk",
  "sdk-pg",
  "sdk-grpc",
  "floor-durable",
  "floor-durable-embedded",
];
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
const rounds = Number(args.rounds);

function validate(): void {
  const known = (ids: string[]) => ids.every((t) => (TARGET_IDS as string[]).includes(t));
  if (!known(targets) || !known(streamTargets)) throw new Error(`targets are ${TARGET_IDS.join(", ")}`);
  // Idle streams measure one process's memory; two processes on one database add nothing to that.
  if (streamTargets.includes("ours-2x")) throw new Error("ours-2x is a load target only, not a --stream-targets one");
  // The idle-stream phases speak JSON-RPC; the HTTP+JSON target is for the load phases.
  if (streamTargets.includes("ours-rest"))
    throw new Error("ours-rest is a load target only, not a --stream-targets one");
  for (const floor of ["floor-durable", "floor-durable-embedded"] as const) {
    if (streamTargets.includes(floor))
      throw new Error(`${floor} answers starts only: a load target, not a --stream-targets one`);
  }
  if (![...phases].every((p) => p === "tasks" || p === "gettask" || p === "send-message")) {
    throw new Error("--phases: tasks, gettask, send-message");
  }
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error("--rounds must be a positive integer");
  const numbers = [durationMs, warmupMs, concurrency, starts, openParallel, idleCpuMs];
  if (!numbers.every((n) => Number.isFinite(n) && n >= 0) || durationMs === 0 || concurrency < 1 || starts < 1) {
    throw new Error("--duration, --concurrency and --starts must be positive numbers, the others non-negative");
  }
  if (targets.includes("ours-2x") && concurrency < 2)
    throw new Error("ours-2x splits --concurrency over 2 servers: ≥ 2");
  for (const series of [streamCounts, subscribeCounts]) {
    if (series.some((n, i) => !Number.isInteger(n) || n < 1 || (i > 0 && n <= (series[i - 1] as number)))) {
      throw new Error("--streams and --subscribe-streams are ascending positive integers (0 to skip)");
    }
  }
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

const NOT_MEASURED = Number.NaN;
const SEND_MESSAGE_NOT_MEASURED: LoadResult["sendMessage"] = {
  perSecond: NOT_MEASURED,
  completed: 0,
  failures: 0,
  p50: NOT_MEASURED,
  p95: NOT_MEASURED,
  cpuMsPerCall: NOT_MEASURED,
};
const GET_TASK_NOT_MEASURED: LoadResult["getTask"] = {
  perSecond: NOT_MEASURED,
  p50: NOT_MEASURED,
  p99: NOT_MEASURED,
  errors: 0,
  cpuUsPerRequest: NOT_MEASURED,
};
const TASKS_NOT_MEASURED: LoadResult["tasks"] = {
  perSecond: NOT_MEASURED,
  completed: 0,
  failures: 0,
  medianMs: NOT_MEASURED,
  cpuMsPerTask: NOT_MEASURED,
  perInstance: [],
};
// The streaming start's phases (first event, GetTask on its tasks, tasks/s); a run of --phases
// send-message alone skips them.
const streamingStart = phases.has("tasks") || phases.has("gettask");

/**
 * Blocking SendMessage to `completed` (send-message.ts), on the target's SendMessage server: the SDK's
 * own, or for ours the agent on the core (the reference server answers -32004, by contract).
 */
async function measureSendMessage(target: Target): Promise<LoadResult["sendMessage"]> {
  if (!phases.has("send-message") || !target.startSendMessage) return SEND_MESSAGE_NOT_MEASURED;
  const server = await target.startSendMessage(loadServerOptions);
  const pool = createPool(server.origin, concurrency + 2);
  try {
    await checkSendMessage(pool);
    log(
      `  SendMessage (blocking, to completed): ${concurrency} concurrent clients, ${durationMs / 1000} s after ${warmupMs / 1000} s warm-up …`,
    );
    const [run, cpu] = await Promise.all([
      blockingSendMessages(pool, { concurrency, warmupMs, durationMs }),
      cpuInWindow(server.pid, warmupMs, durationMs),
    ]);
    log(
      `    ${run.perSecond.toFixed(0)} calls/s (${run.completed} completed, ${run.failures} failures), ` +
        `p50 ${ms(run.p50)} ms, p95 ${ms(run.p95)} ms`,
    );
    return { ...run, cpuMsPerCall: (cpu / run.completed) * 1000 };
  } finally {
    await pool.close().catch(() => undefined);
    await server.kill(args["cpu-prof"] ? "SIGTERM" : "SIGKILL");
  }
}

async function measureLoad(target: Target): Promise<LoadResult> {
  if (target.grpc) return measureGrpcLoad(target, target.grpc);
  const servers: RunningServer[] = [];
  const lanes: Lane[] = [];
  let ttfe: LoadResult["ttfe"] = { median: NOT_MEASURED, p95: NOT_MEASURED, n: 0 };
  let getTask = GET_TASK_NOT_MEASURED;
  let tasks = TASKS_NOT_MEASURED;
  // --phases send-message alone: no streaming start, so no load server either.
  if (streamingStart) {
    try {
      // One after the other: the second instance starts on a database the first has already opened.
      for (let i = 0; i < target.instances; i++) {
        const server = await target.start("load", loadServerOptions);
        servers.push(server);
        const endpoint: Endpoint = { origin: server.origin, path: target.path, dialect: target.dialect };
        lanes.push({ pool: createPool(server.origin, Math.ceil(concurrency / target.instances) + 2), endpoint });
      }
      const [first] = lanes as [Lane];
      const [firstServer] = servers as [RunningServer];
      const window = `${concurrency} concurrent clients, ${durationMs / 1000} s after ${warmupMs / 1000} s warm-up`;
      // A multi-instance target is there for the scale-out figure: its tasks/s only.
      if (target.instances === 1) {
        log(`  first event: ${starts} sequential starts (after 20 warm-up), each followed to its end …`);
        const run = await timeToFirstEvent(first.pool, first.endpoint, { starts, warmups: 20 });
        if (run.completed !== starts) throw new Error(`only ${run.completed} of ${starts} tasks completed`);
        ttfe = { median: median(run.ms), p95: quantile(run.ms, 0.95), n: run.ms.length };
        log(`    median ${ms(ttfe.median)} ms, p95 ${ms(ttfe.p95)} ms`);

        // GetTask before the write-heavy tasks/s phase, whose dead rows and autovacuum would weigh on it.
        if (phases.has("gettask") && !target.startsOnly) {
          log(`  GetTask: ${window}, on ${run.taskIds.length} completed tasks …`);
          getTask = await getTaskFigures(firstServer.pid, () =>
            getTaskThroughput(first.pool, first.endpoint, run.taskIds, { concurrency, warmupMs, durationMs }),
          );
        }
      }
      if (phases.has("tasks")) {
        const split = lanes.length > 1 ? ` split over ${lanes.length} instances` : "";
        log(`  tasks/s: ${window}${split} …`);
        const cpuWindows = Promise.all(servers.map((server) => cpuInWindow(server.pid, warmupMs, durationMs)));
        const run = await sustainedTasks(lanes, { concurrency, warmupMs, durationMs });
        const cpu = await cpuWindows;
        const perInstance = run.completedPerLane.map((n) => n / (durationMs / 1000));
        log(
          `    ${run.perSecond.toFixed(0)} tasks/s (${run.completed} completed, ${run.failures} failures)` +
            (lanes.length > 1 ? `: ${perInstance.map((n) => n.toFixed(0)).join(" + ")} per instance` : ""),
        );
        tasks = {
          perSecond: run.perSecond,
          completed: run.completed,
          failures: run.failures,
          medianMs: median(run.durations),
          cpuMsPerTask: (cpu.reduce((sum, s) => sum + s, 0) / run.completed) * 1000,
          perInstance,
        };
      }
    } finally {
      await Promise.all(lanes.map((lane) => lane.pool.close().catch(() => undefined)));
      // A profile is written on a clean exit only.
      await Promise.all(servers.map((server) => server.kill(args["cpu-prof"] ? "SIGTERM" : "SIGKILL")));
    }
  }
  // After the streaming start's server is gone: the SendMessage server (another process for ours) runs alone.
  const sendMessage = target.instances === 1 ? await measureSendMessage(target) : SEND_MESSAGE_NOT_MEASURED;
  return { ttfe, tasks, getTask, sendMessage };
}

/**
 * GetTask's figures over one window of `poll` (either binding): its rate and latency, and the server's
 * CPU per request in the same window, beside the load generator's own (it shares the two cores, so its
 * cost per request bounds every server's rate).
 */
async function getTaskFigures(
  serverPid: number,
  poll: () => Promise<{ perSecond: number; latencies: number[]; errors: number; requests: number }>,
): Promise<LoadResult["getTask"]> {
  const [polls, cpu, loadCpu] = await Promise.all([
    poll(),
    cpuInWindow(serverPid, warmupMs, durationMs),
    cpuInWindow(process.pid, warmupMs, durationMs),
  ]);
  const figures = {
    perSecond: polls.perSecond,
    p50: quantile(polls.latencies, 0.5),
    p99: quantile(polls.latencies, 0.99),
    errors: polls.errors,
    cpuUsPerRequest: (cpu / polls.requests) * 1e6,
  };
  log(
    `    ${polls.perSecond.toFixed(0)} req/s, p50 ${ms(figures.p50)} ms, ` +
      `server CPU ${figures.cpuUsPerRequest.toFixed(0)} µs per request, load generator ` +
      `${((loadCpu / polls.requests) * 1e6).toFixed(0)} µs (${polls.errors} errors)`,
  );
  return figures;
}

/** measureLoad's phases over A2A's gRPC binding (grpc-load.ts): one server, one grpc-js channel. */
async function measureGrpcLoad(target: Target, grpc: NonNullable<Target["grpc"]>): Promise<LoadResult> {
  const server = await target.start("load", loadServerOptions);
  if (!server.grpcAddress) throw new Error(`${target.id} started no gRPC server`);
  const client = new GrpcLoadClient({ address: server.grpcAddress, ...grpc });
  await client.ready();
  const options = { concurrency, warmupMs, durationMs };
  const window = `${concurrency} concurrent calls on one channel, ${durationMs / 1000} s after ${warmupMs / 1000} s warm-up`;
  try {
    log(`  first event: ${starts} sequential SendStreamingMessage calls (after 20 warm-up), each read to its end …`);
    const run = await grpcTimeToFirstEvent(client, { starts, warmups: 20 });
    if (run.completed !== starts) throw new Error(`only ${run.completed} of ${starts} tasks completed`);
    const ttfe = { median: median(run.ms), p95: quantile(run.ms, 0.95), n: run.ms.length };
    log(`    median ${ms(ttfe.median)} ms, p95 ${ms(ttfe.p95)} ms`);
    let getTask = GET_TASK_NOT_MEASURED;
    if (phases.has("gettask")) {
      log(`  GetTask: ${window}, on ${run.taskIds.length} completed tasks …`);
      getTask = await getTaskFigures(server.pid, () => grpcGetTaskThroughput(client, run.taskIds, options));
    }
    let tasks = TASKS_NOT_MEASURED;
    if (phases.has("tasks")) {
      log(`  tasks/s: ${window} …`);
      const [sustained, cpu] = await Promise.all([
        grpcSustainedTasks(client, options),
        cpuInWindow(server.pid, warmupMs, durationMs),
      ]);
      log(
        `    ${sustained.perSecond.toFixed(0)} tasks/s (${sustained.completed} completed, ${sustained.failures} failures)`,
      );
      tasks = {
        perSecond: sustained.perSecond,
        completed: sustained.completed,
        failures: sustained.failures,
        medianMs: median(sustained.durations),
        cpuMsPerTask: (cpu / sustained.completed) * 1000,
        perInstance: [sustained.perSecond],
      };
    }
    return { ttfe, tasks, getTask, sendMessage: SEND_MESSAGE_NOT_MEASURED };
  } finally {
    client.close();
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

/**
 * A stream scenario on a store of its own. Each scenario's server is killed with its tasks still running
 * (5,000 of them after the streams+tasks one); a server started next on the same database would end
 * them as orphans once their leases ran out, inside its own idle-CPU window (it read 2.2-2.6 % for
 * subscriptions that way, 1.5 % on a store of their own).
 */
async function onItsOwnStore<T>(id: TargetId, measure: (target: Target) => Promise<T>): Promise<T> {
  const target = await createTarget(id);
  try {
    return await measure(target);
  } finally {
    await target.dispose();
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
  // Every target's store is made first and kept to the end: the rounds come back to each.
  const made: Target[] = [];
  const results: Result[] = [];
  const analyze = await startAnalyzeStandIn(POSTGRES_URL);
  try {
    for (const id of targets) made.push(await createTarget(id));
    const loads = new Map<TargetId, LoadResult[]>(targets.map((id) => [id, []]));
    for (let round = 0; round < rounds; round++) {
      // Round r starts at target r: each takes every position in turn, so none always follows the same one.
      const k = round % made.length;
      for (const target of [...made.slice(k), ...made.slice(0, k)]) {
        log(`\n${target.id}${rounds > 1 ? ` (round ${round + 1} of ${rounds})` : ""}:`);
        loads.get(target.id)?.push(await measureLoad(target));
        await sleep(500);
      }
    }
    for (const target of made) {
      const { id } = target;
      const streams: Result["streams"] = {};
      if (streamTargets.includes(id)) {
        log(`\n${id}: idle streams`);
        const options = { openParallel, idleCpuMs, log };
        if (streamCounts.length > 0) {
          streams.task = await onItsOwnStore(id, (fresh) =>
            measureStreams(fresh, "task", { ...options, counts: streamCounts }),
          );
        }
        if (subscribeCounts.length > 0) {
          streams.subscribe = await onItsOwnStore(id, (fresh) =>
            measureStreams(fresh, "subscribe", { ...options, counts: subscribeCounts }),
          );
        }
      }
      const own = loads.get(id) ?? [];
      results.push({
        target: id,
        label: target.label,
        store: target.store,
        instances: target.instances,
        load: medianLoad(own),
        rounds: own,
        streams,
      });
    }
  } finally {
    await analyze.stop();
    for (const target of made) await target.dispose().catch(() => undefined);
  }
  const scaleOutRows = scaleOut(results);
  // The first event's floor on PostgreSQL, measured now: the SDK's answer plus one start-sized commit.
  let floor: CommitFloor | undefined;
  if (streamingStart && targets.includes("ours") && targets.includes("sdk")) {
    log("\ncommit floor: one start-sized commit on this PostgreSQL server");
    floor = await commitFloor(POSTGRES_URL);
  }
  const verdicts = targetVerdicts(results, floor ? { commitMs: floor.p50 } : {});
  const lines = [
    "",
    `A2A bench on ${machine}; load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")}.`,
    `Servers (each a child process on this machine): ${results.map((r) => `${r.label} = ${r.store}`).join("; ")}.`,
    ...(analyze.note ? [analyze.note] : []),
    ...(rounds > 1
      ? [
          `Load phases in ${rounds} rounds, the targets interleaved (order rotated each round): each figure is the ` +
            "median of the rounds; each ratio the median of the rounds' ratios (spread), ≈ when the spread holds 1 " +
            "(a difference within it). Idle streams: one pass.",
        ]
      : []),
    `Load from this process (undici Pools, keep-alive). GetTask and tasks/s: ${concurrency} concurrent clients, ` +
      `${durationMs / 1000} s after ${warmupMs / 1000} s warm-up; first event: ${starts} sequential starts; ` +
      `robot step ${STEP_MS.load} ms, 5 steps per task. Server CPU of the embedded target includes its database.`,
    ...(floor
      ? [
          `Commit floor: one autocommitted insert of a start's size (two ${floor.bytes}-byte JSON documents) on this ` +
            `PostgreSQL server, median of ${floor.samples}: ${ms(floor.p50)} ms (bench/a2a/commit-floor.ts).`,
        ]
      : []),
    ...(phases.has("send-message")
      ? [
          `SendMessage (blocking, to completed; ${concurrency} clients, same window): ours is an agent on the core ` +
            "with SendMessage on (bench/a2a/ours-agent-server.ts, the SDK twin's executor, a store of the target's " +
            "kind of its own; the reference server answers -32004 by contract), the SDK its own server.",
        ]
      : []),
    `Idle streams: robot step ${Number(STEP_MS.streams) / 60_000} min (tasks stay working); memory of the server ` +
      `process minus its baseline (200 working tasks), divided by the streams held.`,
    "",
    resultTable(results, streamCounts, subscribeCounts),
    "",
    ...(scaleOutRows.length > 0
      ? [
          `Scale-out (tasks/s, the ${concurrency} clients split evenly over the instances, same window and settings):`,
          ...scaleOutLines(scaleOutRows),
          "",
        ]
      : []),
    "Targets (against the SDK's default in-memory server of this run unless named; medians of the rounds' ratios; " +
      "the OpenTelemetry ones against ours):",
    ...verdictLines(verdicts),
    "",
    `Total bench time ${((Date.now() - started) / 1000).toFixed(0)} s.`,
    "",
  ];
  process.stdout.write(lines.join("\n"));
  if (args.json) {
    const settings = {
      targets,
      streamTargets,
      phases: [...phases],
      rounds,
      concurrency,
      durationMs,
      warmupMs,
      starts,
      streamCounts,
      subscribeCounts,
      openParallel,
      idleCpuMs,
    };
    process.stdout.write(
      `${JSON.stringify({ machine, settings, results, scaleOut: scaleOutRows, floor, verdicts })}\n`,
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
