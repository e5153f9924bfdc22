/**
 * The bench's printed results: one table (every single-instance server, the ratios of ours and ours on
 * the embedded store to each other server), the scale-out figure, and the verdict on each performance
 * target in docs/performance.md, judged against the official SDK's default server (`sdk`) of the same run.
 */
import { median, ms } from "../metrics/stats.ts";
import type { StreamPoint, StreamScenario } from "./streams.ts";
import type { TargetId } from "./targets.ts";

export interface LoadResult {
  /** Not measured (NaN, n = 0) on a multi-instance target: only its tasks/s is. */
  ttfe: { median: number; p95: number; n: number };
  tasks: {
    perSecond: number;
    completed: number;
    failures: number;
    medianMs: number;
    /** Server CPU (all of the target's processes) over the window, per completed task. */
    cpuMsPerTask: number;
    /** tasks/s completed through each server instance (one entry per instance). */
    perInstance: number[];
  };
  getTask: { perSecond: number; p50: number; p99: number; errors: number; cpuUsPerRequest: number };
  /**
   * Blocking SendMessage to `completed` (send-message.ts), on the target's SendMessage server: for ours an
   * agent on the core with SendMessage on, on a store of the same kind (the reference server answers
   * -32004, by contract). NaN where not measured.
   */
  sendMessage: {
    perSecond: number;
    completed: number;
    failures: number;
    p50: number;
    p95: number;
    cpuMsPerCall: number;
  };
}

export interface Result {
  target: TargetId;
  label: string;
  store: string;
  /** Server processes that shared the load (and the store). */
  instances: number;
  /** With --rounds above 1: each figure the median of the rounds (medianLoad). */
  load: LoadResult;
  /** The load figures of each round, in round order (the rounds interleave the targets). */
  rounds: LoadResult[];
  streams: Partial<Record<StreamScenario["kind"], StreamScenario>>;
}

/** Each number the median of the rounds' (arrays element by element). */
export function medianLoad(rounds: readonly LoadResult[]): LoadResult {
  const merge = (values: readonly unknown[]): unknown => {
    const [first] = values;
    if (typeof first === "number") return median(values as number[]);
    if (Array.isArray(first)) return first.map((_, i) => merge(values.map((v) => (v as unknown[])[i])));
    if (typeof first === "object" && first !== null) {
      return Object.fromEntries(
        Object.keys(first).map((key) => [key, merge(values.map((v) => (v as Record<string, unknown>)[key]))]),
      );
    }
    return first;
  };
  return merge(rounds) as LoadResult;
}

type Better = "higher" | "lower";
type Row = [name: string, get: (r: Result) => number | undefined, format: (n: number) => string, better: Better];

const whole = (n: number) => n.toFixed(0);
const tenth = (n: number) => n.toFixed(1);
const at = (n: number) => n.toLocaleString("en");

function streamRows(counts: number[], subscribeCounts: number[]): Row[] {
  const rows: Row[] = [];
  counts.forEach((count, i) => {
    rows.push([
      `RSS KiB per idle stream+task @ ${at(count)} (after GC)`,
      (r) => r.streams.task?.points[i]?.perStream.rssAfterGcKiB,
      tenth,
      "lower",
    ]);
    rows.push([
      `RSS KiB per idle stream+task @ ${at(count)} (settled, no GC)`,
      (r) => r.streams.task?.points[i]?.perStream.rssKiB,
      tenth,
      "lower",
    ]);
    rows.push([
      `heap KiB per idle stream+task @ ${at(count)}`,
      (r) => r.streams.task?.points[i]?.perStream.heapKiB,
      tenth,
      "lower",
    ]);
  });
  subscribeCounts.forEach((count, i) => {
    rows.push([
      `RSS KiB per idle subscription @ ${at(count)} (after GC)`,
      (r) => r.streams.subscribe?.points[i]?.perStream.rssAfterGcKiB,
      tenth,
      "lower",
    ]);
    rows.push([
      `heap KiB per idle subscription @ ${at(count)}`,
      (r) => r.streams.subscribe?.points[i]?.perStream.heapKiB,
      tenth,
      "lower",
    ]);
  });
  rows.push(["streams+tasks opened per second", (r) => r.streams.task?.openPerSecond, whole, "higher"]);
  const max = counts.at(-1);
  if (max !== undefined) {
    rows.push([
      `idle CPU @ ${at(max)} streams+tasks (% of a core)`,
      (r) => r.streams.task && r.streams.task.idleCpu * 100,
      tenth,
      "lower",
    ]);
  }
  const maxSubscribe = subscribeCounts.at(-1);
  if (maxSubscribe !== undefined) {
    rows.push([
      `idle CPU @ ${at(maxSubscribe)} subscriptions (% of a core)`,
      (r) => r.streams.subscribe && r.streams.subscribe.idleCpu * 100,
      tenth,
      "lower",
    ]);
  }
  return rows;
}

/** Our single-instance targets: each gets a ratio column against every other server in the table. */
const OURS_RATIOED: readonly TargetId[] = ["ours", "ours-embedded"];

export function resultTable(results: Result[], counts: number[], subscribeCounts: number[]): string {
  // Multi-instance targets have a section of their own (scaleOutLines): only tasks/s is measured there.
  const columns = results.filter((r) => r.instances === 1);
  const numerators = columns.filter((r) => OURS_RATIOED.includes(r.target));
  const denominators = columns.filter((r) => !OURS_RATIOED.includes(r.target));
  const pairs = numerators.flatMap((a) => denominators.map((b) => [a, b] as const));
  const rows: Row[] = [
    ["GetTask requests/s", (r) => r.load.getTask.perSecond, whole, "higher"],
    ["GetTask latency p50 (ms)", (r) => r.load.getTask.p50, ms, "lower"],
    ["GetTask latency p99 (ms)", (r) => r.load.getTask.p99, ms, "lower"],
    ["server CPU per GetTask (µs)", (r) => r.load.getTask.cpuUsPerRequest, whole, "lower"],
    ["first SSE event of a new task, median (ms)", (r) => r.load.ttfe.median, ms, "lower"],
    ["first SSE event of a new task, p95 (ms)", (r) => r.load.ttfe.p95, ms, "lower"],
    ["tasks/s sustained (started → completed)", (r) => r.load.tasks.perSecond, whole, "higher"],
    ["task duration under that load, median (ms)", (r) => r.load.tasks.medianMs, ms, "lower"],
    ["server CPU per task (ms)", (r) => r.load.tasks.cpuMsPerTask, ms, "lower"],
    ["SendMessage calls/s (blocking, to completed)", (r) => r.load.sendMessage?.perSecond, whole, "higher"],
    ["SendMessage latency under that load, p50 (ms)", (r) => r.load.sendMessage?.p50, ms, "lower"],
    ["SendMessage latency under that load, p95 (ms)", (r) => r.load.sendMessage?.p95, ms, "lower"],
    ["server CPU per SendMessage (ms)", (r) => r.load.sendMessage?.cpuMsPerCall, ms, "lower"],
    ...streamRows(counts, subscribeCounts),
  ];
  const header = [
    "figure",
    ...columns.map((r) => r.label),
    ...pairs.map(([a, b]) => `${a.label} ÷ ${b.label}`),
    "better",
  ];
  const lines = [`| ${header.join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`];
  for (const [name, get, format, better] of rows) {
    // A figure no server measured (a phase or stream kind left out of this run) would be a row of dashes.
    if (!columns.some((r) => measured(get(r)))) continue;
    const cells = columns.map((r) => {
      const v = get(r);
      return measured(v) ? format(v) : "–";
    });
    const ratios = pairs.map(([a, b]) => {
      const denominator = get(b);
      // Against a figure the table shows as zero (an idle SDK's 0.03 % of a core) a ratio reads as nonsense.
      if (measured(denominator) && Number(format(denominator)) === 0) return "–";
      return ratioCell(a, b, get);
    });
    lines.push(`| ${[name, ...cells, ...ratios, better].join(" | ")} |`);
  }
  return lines.join("\n");
}

/**
 * a ÷ b: with rounds, the median of the rounds' ratios (each round's a and b ran next to each other in
 * time) with their spread, and "≈" when the spread holds 1 (a difference within it); else the one ratio.
 */
function ratioCell(a: Result, b: Result, get: Row[1]): string {
  const n = Math.min(a.rounds.length, b.rounds.length);
  const perRound = Array.from({ length: n }, (_, i) =>
    ratio(get({ ...a, load: a.rounds[i] as LoadResult }), get({ ...b, load: b.rounds[i] as LoadResult })),
  ).filter(measured);
  const spread = Math.max(...perRound) - Math.min(...perRound);
  if (perRound.length < 2 || spread === 0) {
    const r = ratio(get(a), get(b));
    return measured(r) ? `${r.toFixed(2)}×` : "–";
  }
  const [low, high] = [Math.min(...perRound), Math.max(...perRound)];
  const within = low <= 1 && high >= 1 ? " ≈" : "";
  return `${median(perRound).toFixed(2)}× (${low.toFixed(2)}–${high.toFixed(2)})${within}`;
}

function measured(value: number | undefined): value is number {
  return value !== undefined && Number.isFinite(value);
}

/** a ÷ b, NaN when either is missing or b is 0. */
function ratio(a: number | undefined, b: number | undefined): number {
  return measured(a) && measured(b) && b !== 0 ? a / b : Number.NaN;
}

/** The scale-out comparison: every multi-instance target against `ours` (one instance) of the same run. */
export interface ScaleOut {
  target: TargetId;
  instances: number;
  tasksPerSecond: number;
  perInstance: number[];
  /** `ours`'s tasks/s in this run (NaN when it was not run). */
  singleTasksPerSecond: number;
  /** tasksPerSecond ÷ singleTasksPerSecond. */
  ratio: number;
  medianMs: number;
  cpuMsPerTask: number;
  failures: number;
}

export function scaleOut(results: Result[]): ScaleOut[] {
  const single = results.find((r) => r.target === "ours");
  return results
    .filter((r) => r.instances > 1)
    .map((r) => {
      const singleTasksPerSecond = single?.load.tasks.perSecond ?? Number.NaN;
      return {
        target: r.target,
        instances: r.instances,
        tasksPerSecond: r.load.tasks.perSecond,
        perInstance: r.load.tasks.perInstance,
        singleTasksPerSecond,
        ratio: ratio(r.load.tasks.perSecond, singleTasksPerSecond),
        medianMs: r.load.tasks.medianMs,
        cpuMsPerTask: r.load.tasks.cpuMsPerTask,
        failures: r.load.tasks.failures,
      };
    });
}

export function scaleOutLines(rows: ScaleOut[]): string[] {
  return rows.map((s) => {
    const split = s.perInstance.map(whole).join(" + ");
    const single = measured(s.singleTasksPerSecond)
      ? `one instance (ours, this run) ${whole(s.singleTasksPerSecond)} tasks/s → ${s.ratio.toFixed(2)}×`
      : "one instance: not measured (add `ours` to --targets)";
    return measured(s.tasksPerSecond)
      ? `- ${s.instances} instances on one PostgreSQL database: ${whole(s.tasksPerSecond)} tasks/s (${split} per instance); ` +
          `${single}. Task duration median ${ms(s.medianMs)} ms, server CPU per task ${ms(s.cpuMsPerTask)} ms ` +
          `(all instances), ${s.failures} failures.`
      : `- ${s.instances} instances on one PostgreSQL database: not measured (the tasks phase did not run)`;
  });
}

/**
 * One performance target: `met` is true or false when both sides were measured, null when they were not
 * (status "NOT MEASURED") or when the line is a figure without a target (status "FIGURE", scale-out).
 * `figures` carries the numbers judged, for the JSON output.
 */
export interface Verdict {
  id: string;
  target: string;
  status: "MET" | "NOT MET" | "NOT MEASURED" | "FIGURE";
  met: boolean | null;
  detail: string;
  figures: Record<string, number>;
}

/** A judged verdict: its status follows `met`. */
function judged(id: string, target: string, met: boolean, detail: string, figures: Record<string, number>): Verdict {
  return { id, target, status: met ? "MET" : "NOT MET", met, detail, figures };
}

function notMeasured(id: string, target: string, why: string, figures: Record<string, number> = {}): Verdict {
  return { id, target, status: "NOT MEASURED", met: null, detail: why, figures };
}

/** The OpenTelemetry targets, each against `ours` of the same run (not the SDK). */
const TELEMETRY_TARGETS: readonly TargetId[] = ["ours-otel-metrics", "ours-otel-sampled", "ours-otel"];
const TELEMETRY_COST_BOUND = 0.05;

/**
 * What the instrumentation costs with an SDK registered: GetTask requests/s and tasks/s of each
 * OpenTelemetry target against `ours` of the same run, at most 5 % less. Server CPU per request and per
 * task are given too: on a shared machine they are steadier than throughput.
 */
function telemetryVerdicts(results: Result[]): Verdict[] {
  const ours = results.find((r) => r.target === "ours");
  const ran = results.filter((r) => TELEMETRY_TARGETS.includes(r.target));
  const bound = `${TELEMETRY_COST_BOUND * 100} %`;
  if (ran.length === 0) {
    return [
      notMeasured(
        "telemetry.cost",
        `OpenTelemetry on: GetTask requests/s and tasks/s at most ${bound} below ours`,
        `add ${TELEMETRY_TARGETS.join(", ")} (and ours) to --targets`,
      ),
    ];
  }
  const phases = [
    {
      key: "getTask",
      name: "GetTask requests/s",
      rate: (r: Result) => r.load.getTask.perSecond,
      cpu: (r: Result) => r.load.getTask.cpuUsPerRequest,
      cpuUnit: "µs CPU per request",
    },
    {
      key: "tasks",
      name: "tasks/s",
      rate: (r: Result) => r.load.tasks.perSecond,
      cpu: (r: Result) => r.load.tasks.cpuMsPerTask,
      cpuUnit: "ms CPU per task",
    },
  ] as const;
  return ran.flatMap((otel) =>
    phases.map((phase) => {
      const id = `telemetry.${otel.target}.${phase.key}`;
      const target = `${otel.label}: ${phase.name} at most ${bound} below ours`;
      const a = ours ? phase.rate(ours) : Number.NaN;
      const b = phase.rate(otel);
      if (!measured(a) || !measured(b)) return notMeasured(id, target, ours ? "phase not run" : "ours was not run");
      const cost = 1 - b / a;
      const cpuA = ours ? phase.cpu(ours) : Number.NaN;
      const cpuB = phase.cpu(otel);
      const cpu =
        measured(cpuA) && measured(cpuB)
          ? `; server ${fmt(cpuB, 2)} vs ${fmt(cpuA, 2)} ${phase.cpuUnit} (${((cpuB / cpuA - 1) * 100).toFixed(1)} %)`
          : "";
      return judged(
        id,
        target,
        cost <= TELEMETRY_COST_BOUND,
        `${cost >= 0 ? `${(cost * 100).toFixed(1)} % below` : `${(-cost * 100).toFixed(1)} % above`} (${fmt(b)} vs ${fmt(a)})${cpu}`,
        {
          ours: a,
          otel: b,
          cost,
          threshold: TELEMETRY_COST_BOUND,
        },
      );
    }),
  );
}

/** REST (issue 33): our HTTP+JSON binding against our JSON-RPC one in the same run, within 10 %. */
const REST_BOUND = 0.1;

function restVerdicts(results: Result[]): Verdict[] {
  const ours = results.find((r) => r.target === "ours");
  const rest = results.find((r) => r.target === "ours-rest");
  const phases = [
    { key: "getTask", name: "GetTask requests/s", value: (r: Result) => r.load.getTask.perSecond, higher: true },
    { key: "firstEvent", name: "first SSE event p50", value: (r: Result) => r.load.ttfe.median, higher: false },
  ] as const;
  return phases.map((phase) => {
    const id = `rest.${phase.key}`;
    const target = `HTTP+JSON: ${phase.name} within ${REST_BOUND * 100} % of JSON-RPC (ours)`;
    if (!ours || !rest) return notMeasured(id, target, "add ours and ours-rest to --targets");
    const a = phase.value(ours);
    const b = phase.value(rest);
    if (!measured(a) || !measured(b)) return notMeasured(id, target, "phase not run");
    // Worse by: fewer requests/s, or a later first event.
    const worse = phase.higher ? 1 - b / a : b / a - 1;
    return judged(
      id,
      target,
      worse <= REST_BOUND,
      `${worse >= 0 ? `${(worse * 100).toFixed(1)} % worse` : `${(-worse * 100).toFixed(1)} % better`} (${fmt(b, 2)} vs ${fmt(a, 2)})`,
      { jsonRpc: a, httpJson: b, worse, threshold: REST_BOUND },
    );
  });
}

/**
 * gRPC (issue 45): our gRPC binding against our JSON-RPC one in the same run (GetTask requests/s at least
 * JSON-RPC's, first event within 10 %), and against the official SDK's gRPC server of the same run on the
 * bounds ours over JSON-RPC has against the SDK over JSON-RPC. Server CPU per request is given beside the
 * rate: on a shared machine it is the steadier figure.
 */
const GRPC_FIRST_EVENT_BOUND = 0.1;

function grpcVerdicts(results: Result[]): Verdict[] {
  const ours = results.find((r) => r.target === "ours");
  const grpc = results.find((r) => r.target === "ours-grpc");
  const sdkGrpc = results.find((r) => r.target === "sdk-grpc");
  const cpuNote = (a: Result, b: Result) => {
    const x = a.load.getTask.cpuUsPerRequest;
    const y = b.load.getTask.cpuUsPerRequest;
    return measured(x) && measured(y) ? `; server CPU ${fmt(x)} vs ${fmt(y)} µs per GetTask` : "";
  };
  const verdicts: Verdict[] = [];
  {
    const id = "grpc.getTask";
    const target = "gRPC: GetTask requests/s ≥ JSON-RPC's (ours)";
    const a = ours?.load.getTask.perSecond ?? Number.NaN;
    const b = grpc?.load.getTask.perSecond ?? Number.NaN;
    if (!ours || !grpc) verdicts.push(notMeasured(id, target, "add ours and ours-grpc to --targets"));
    else if (!measured(a) || !measured(b)) verdicts.push(notMeasured(id, target, "the gettask phase not run"));
    else {
      verdicts.push(
        judged(id, target, b >= a, `${(b / a).toFixed(2)}× (${fmt(b)} vs ${fmt(a)} req/s)${cpuNote(grpc, ours)}`, {
          jsonRpc: a,
          grpc: b,
          ratio: b / a,
          grpcCpuUs: grpc.load.getTask.cpuUsPerRequest,
          jsonRpcCpuUs: ours.load.getTask.cpuUsPerRequest,
        }),
      );
    }
  }
  {
    const id = "grpc.firstEvent";
    const target = `gRPC: first event p50 within ${GRPC_FIRST_EVENT_BOUND * 100} % of JSON-RPC's (ours)`;
    const a = ours?.load.ttfe.median ?? Number.NaN;
    const b = grpc?.load.ttfe.median ?? Number.NaN;
    if (!ours || !grpc) verdicts.push(notMeasured(id, target, "add ours and ours-grpc to --targets"));
    else {
      const worse = b / a - 1;
      verdicts.push(
        judged(
          id,
          target,
          worse <= GRPC_FIRST_EVENT_BOUND,
          `${worse >= 0 ? `${(worse * 100).toFixed(1)} % later` : `${(-worse * 100).toFixed(1)} % sooner`} (${fmt(b, 2)} vs ${fmt(a, 2)} ms)`,
          { jsonRpc: a, grpc: b, worse, threshold: GRPC_FIRST_EVENT_BOUND },
        ),
      );
    }
  }
  // Memory per idle stream has no gRPC target: the figure, beside the SSE one and the SDK's gRPC one.
  {
    const id = "grpc.streamRss";
    const target = "gRPC (no target): RSS per idle stream at 5,000, after GC, against SSE and the SDK's gRPC server";
    const kib = (r: Result | undefined, kind: StreamScenario["kind"]) =>
      pointAt(r?.streams[kind])?.perStream.rssAfterGcKiB ?? Number.NaN;
    const figures = {
      grpcTask: kib(grpc, "task"),
      grpcSubscribe: kib(grpc, "subscribe"),
      sseTask: kib(ours, "task"),
      sseSubscribe: kib(ours, "subscribe"),
      sdkGrpcTask: kib(sdkGrpc, "task"),
      sdkGrpcSubscribe: kib(sdkGrpc, "subscribe"),
    };
    if (!measured(figures.grpcTask) && !measured(figures.grpcSubscribe)) {
      verdicts.push(notMeasured(id, target, "ours-grpc not in --stream-targets, or no count ≥ 5,000", figures));
    } else {
      const health = grpc?.streams.task ?? grpc?.streams.subscribe;
      const held = health ? `; ours over gRPC: ${health.failedToOpen} failed to open, ${health.dropped} dropped` : "";
      verdicts.push({
        id,
        target,
        status: "FIGURE",
        met: null,
        detail:
          `KiB per stream+task / per subscription: ours over gRPC ${fmt(figures.grpcTask, 1)} / ${fmt(figures.grpcSubscribe, 1)}, ` +
          `over SSE ${fmt(figures.sseTask, 1)} / ${fmt(figures.sseSubscribe, 1)}, SDK over gRPC ` +
          `${fmt(figures.sdkGrpcTask, 1)} / ${fmt(figures.sdkGrpcSubscribe, 1)}${held}`,
        figures,
      });
    }
  }
  const versusSdkGrpc = [
    {
      key: "getTask",
      name: "GetTask requests/s ≥ 2×",
      get: (r: Result) => r.load.getTask.perSecond,
      factor: 2,
      higher: true,
      unit: "req/s",
      digits: 0,
    },
    {
      key: "firstEvent",
      name: "first event p50 ≤",
      get: (r: Result) => r.load.ttfe.median,
      factor: 1,
      higher: false,
      unit: "ms",
      digits: 2,
    },
    {
      key: "tasks",
      name: "tasks/s ≥",
      get: (r: Result) => r.load.tasks.perSecond,
      factor: 1,
      higher: true,
      unit: "tasks/s",
      digits: 0,
    },
  ] as const;
  for (const phase of versusSdkGrpc) {
    const id = `grpc.sdk.${phase.key}`;
    const target = `gRPC: ${phase.name} the SDK's gRPC server's`;
    if (!grpc || !sdkGrpc) {
      verdicts.push(notMeasured(id, target, "add ours-grpc and sdk-grpc to --targets"));
      continue;
    }
    const a = phase.get(grpc);
    const b = phase.get(sdkGrpc);
    if (!measured(a) || !measured(b)) {
      verdicts.push(notMeasured(id, target, "phase not run"));
      continue;
    }
    const met = phase.higher ? a >= phase.factor * b : a <= phase.factor * b;
    const cpu = phase.key === "getTask" ? cpuNote(grpc, sdkGrpc) : "";
    verdicts.push(
      judged(
        id,
        target,
        met,
        `${(a / b).toFixed(2)}× (${fmt(a, phase.digits)} vs ${fmt(b, phase.digits)} ${phase.unit})${cpu}`,
        {
          ours: a,
          sdk: b,
          ratio: a / b,
          threshold: phase.factor,
        },
      ),
    );
  }
  return verdicts;
}

const STREAMS_AT = 5_000;
const RSS_KIB_PER_STREAM = 20;
const IDLE_CPU_SHARE = 0.02;

/** Whether every stream of a scenario held (none failed to open, none dropped), in words and figures. */
function streamsHeld(scenario: StreamScenario, heldStreams: number) {
  const { failedToOpen, dropped } = scenario;
  return {
    held: failedToOpen === 0 && dropped === 0,
    detail: `${at(heldStreams)} held, ${failedToOpen} failed to open, ${dropped} dropped`,
    figures: { failedToOpen, dropped },
  };
}

/**
 * RSS after GC per stream between the scenario's first count and `point`: what each further stream costs,
 * whatever the baseline read before the streams opened (it moves by megabytes between builds whose heap
 * is the same). Undefined with one count only.
 */
function marginalRssKiB(scenario: StreamScenario, point: StreamPoint): { from: number; kib: number } | undefined {
  const first = scenario.points[0];
  if (!first || first === point || point.streams <= first.streams) return undefined;
  const held = (p: StreamPoint) => p.perStream.rssAfterGcKiB * p.streams;
  return { from: first.streams, kib: (held(point) - held(first)) / (point.streams - first.streams) };
}

/** The first point at ≥ 5,000 requested streams of a scenario. */
function pointAt(scenario: StreamScenario | undefined): StreamPoint | undefined {
  return scenario?.points.find((p) => p.requested >= STREAMS_AT);
}

function fmt(n: number, digits = 0): string {
  return Number.isFinite(n) ? n.toFixed(digits) : "–";
}

/** What `pnpm bench:a2a` measured beside the servers: one commit of a start's size (commit-floor.ts). */
export interface Floors {
  /** The median commit on this PostgreSQL server, ms. */
  commitMs?: number;
}

/**
 * A ratio of ours to another server, judged on the median of the rounds' ratios (each round loads every
 * target once, side by side in time), with the rounds' spread; one round's ratio when there was one.
 */
function roundRatios(ours: Result, other: Result, get: (load: LoadResult) => number): number[] {
  return ours.rounds
    .map((round, i) => {
      const theirs = other.rounds[i];
      return theirs ? get(round) / get(theirs) : Number.NaN;
    })
    .filter(measured);
}

/**
 * One figure of `a` against `b` as the verdicts print it: the median of the rounds' ratios (their ratio of
 * medians with one round or none), the rounds' lowest and highest, and the spread's text when there are
 * several rounds.
 */
function ratioOverRounds(a: Result, b: Result, get: (load: LoadResult) => number) {
  const ratios = roundRatios(a, b, get);
  const ratio = ratios.length > 0 ? median(ratios) : get(a.load) / get(b.load);
  const low = Math.min(...ratios);
  const high = Math.max(...ratios);
  const severalRounds = ratios.length > 1;
  const spread = severalRounds ? ` (rounds ${low.toFixed(2)}–${high.toFixed(2)}×)` : "";
  return { ratio, low, high, severalRounds, spread };
}

/**
 * The performance targets (docs/performance.md), each judged on our servers against the SDK's default
 * (in-memory) server, or its durable one where a target says so, as the median of the rounds' ratios.
 */
export function targetVerdicts(results: Result[], floors: Floors = {}): Verdict[] {
  const find = (id: TargetId) => results.find((r) => r.target === id);
  const sdk = find("sdk");
  const sdkPg = find("sdk-pg");
  const ours = find("ours");
  const embedded = find("ours-embedded");
  const verdicts: Verdict[] = [];

  /**
   * A figure of ours against `factor` × the SDK's (`against`, the in-memory one unless given): ≥ for
   * higher-is-better, ≤ for lower-is-better, judged on the median of the rounds' ratios; "at the line"
   * when the rounds fall on both sides of the factor.
   */
  const versusSdk = (
    id: string,
    target: string,
    ourResult: Result | undefined,
    ourTargetId: TargetId,
    get: (load: LoadResult) => number,
    factor: number,
    better: Better,
    unit: string,
    digits: number,
    phase: string,
    against: { result: Result | undefined; id: TargetId } = { result: sdk, id: "sdk" },
    note: (sdkFigure: number) => string = () => "",
  ) => {
    const theirs = against.result;
    const a = ourResult ? get(ourResult.load) : Number.NaN;
    const b = theirs ? get(theirs.load) : Number.NaN;
    if (!ourResult || !theirs || !measured(a) || !measured(b)) {
      const missing = !ourResult
        ? `${ourTargetId} was not run`
        : !theirs
          ? `${against.id} was not run`
          : `${phase} not run`;
      verdicts.push(notMeasured(id, target, missing, { ours: a, sdk: b }));
      return;
    }
    const { ratio: r, low, high, severalRounds, spread } = ratioOverRounds(ourResult, theirs, get);
    const atTheLine = severalRounds && low <= factor && factor <= high ? "; at the line: rounds on both sides" : "";
    const met = better === "higher" ? r >= factor : r <= factor;
    verdicts.push(
      judged(
        id,
        target,
        met,
        `${r.toFixed(2)}×${spread} (${fmt(a, digits)} vs ${fmt(b, digits)} ${unit})${atTheLine}${note(b)}`,
        {
          ours: a,
          sdk: b,
          ratio: r,
          ...(severalRounds ? { lowest: low, highest: high } : {}),
          threshold: factor,
        },
      ),
    );
  };
  // The floor of a durable first event: the SDK's in-memory answer plus one commit of the start's size.
  const commitMs = floors.commitMs;
  const commitFloorNote = (sdkMs: number) =>
    commitMs !== undefined && measured(commitMs)
      ? `; floor (the SDK's ${fmt(sdkMs, 2)} ms + one start-sized commit ${fmt(commitMs, 2)} ms) ` +
        `${fmt(sdkMs + commitMs, 2)} ms = ${((sdkMs + commitMs) / sdkMs).toFixed(2)}×`
      : "";
  // The same figure of the least a durable server does on the same store (floor-durable on PostgreSQL,
  // floor-durable-embedded on PGlite), against the same SDK.
  const durableFloorNote =
    (floorId: TargetId, get: (load: LoadResult) => number, unit: string, digits: number) => () => {
      const durableFloor = find(floorId);
      const figure = durableFloor ? get(durableFloor.load) : Number.NaN;
      if (!durableFloor || !sdk || !measured(figure)) return "";
      const { ratio, spread } = ratioOverRounds(durableFloor, sdk, get);
      return `; a durable server's floor (${floorId}) ${fmt(figure, digits)} ${unit} = ${ratio.toFixed(2)}×${spread}`;
    };
  const firstEventDurableFloorNote = durableFloorNote("floor-durable", (load) => load.ttfe.median, "ms", 2);

  versusSdk(
    "postgres.getTask",
    "PostgreSQL: GetTask requests/s ≥ 1.9× the SDK's",
    ours,
    "ours",
    (load) => load.getTask.perSecond,
    1.9,
    "higher",
    "req/s",
    0,
    "the gettask phase",
  );
  versusSdk(
    "postgres.firstEvent",
    "PostgreSQL: first SSE event p50 ≤ 1.5× the SDK's",
    ours,
    "ours",
    (load) => load.ttfe.median,
    1.5,
    "lower",
    "ms",
    2,
    "the first-event phase",
    undefined,
    (sdkMs) => commitFloorNote(sdkMs) + firstEventDurableFloorNote(),
  );
  versusSdk(
    "postgres.firstEventDurable",
    "PostgreSQL: first SSE event p50 ≤ the SDK's on its durable store (sdk-pg)",
    ours,
    "ours",
    (load) => load.ttfe.median,
    1,
    "lower",
    "ms",
    2,
    "the first-event phase",
    { result: sdkPg, id: "sdk-pg" },
  );
  versusSdk(
    "postgres.tasks",
    "PostgreSQL: tasks/s ≥ 0.55× the SDK's",
    ours,
    "ours",
    (load) => load.tasks.perSecond,
    0.55,
    "higher",
    "tasks/s",
    0,
    "the tasks phase",
    undefined,
    durableFloorNote("floor-durable", (load) => load.tasks.perSecond, "tasks/s", 0),
  );
  versusSdk(
    "postgres.cpuPerTask",
    "PostgreSQL: server CPU per task ≤ the SDK's",
    ours,
    "ours",
    (load) => load.tasks.cpuMsPerTask,
    1,
    "lower",
    "ms",
    3,
    "the tasks phase",
  );

  // Memory per idle stream, each on a task of its own: an absolute bound, and every stream must have held.
  {
    const id = "postgres.streamTaskRss";
    const target = `PostgreSQL: ≤ ${RSS_KIB_PER_STREAM} KiB RSS per idle stream with a task of its own at 5,000 streams (after GC)`;
    const scenario = ours?.streams.task;
    const point = pointAt(scenario);
    if (!scenario || !point) {
      const why = !ours
        ? "ours was not run"
        : !scenario
          ? "ours not in --stream-targets, or --streams 0"
          : `largest --streams count ${at(scenario.points.at(-1)?.requested ?? 0)}`;
      verdicts.push(notMeasured(id, target, why));
    } else {
      const health = streamsHeld(scenario, point.streams);
      const kib = point.perStream.rssAfterGcKiB;
      const marginal = marginalRssKiB(scenario, point);
      verdicts.push(
        judged(
          id,
          target,
          health.held && kib <= RSS_KIB_PER_STREAM,
          `${kib.toFixed(1)} KiB each (${point.perStream.rssKiB.toFixed(1)} settled, ${point.perStream.heapKiB.toFixed(1)} heap)` +
            `${marginal ? `; each stream past the first ${at(marginal.from)}: ${marginal.kib.toFixed(1)} KiB` : ""}; ` +
            health.detail,
          {
            ours: kib,
            threshold: RSS_KIB_PER_STREAM,
            streams: point.streams,
            ...(marginal ? { marginalKiB: marginal.kib } : {}),
            ...health.figures,
          },
        ),
      );
    }
  }

  // Memory per idle resubscribed stream against the SDK's, both at their first count ≥ 5,000.
  {
    const id = "postgres.streamSubscribeRss";
    const target = "PostgreSQL: RSS per idle resubscribed (SubscribeToTask) stream at 5,000 ≤ the SDK's (after GC)";
    const mine = ours?.streams.subscribe;
    const theirs = sdk?.streams.subscribe;
    const a = pointAt(mine);
    const b = pointAt(theirs);
    if (!mine || !theirs || !a || !b) {
      const why = !ours
        ? "ours was not run"
        : !sdk
          ? "sdk was not run"
          : !mine || !theirs
            ? "ours and sdk must both be in --stream-targets, with --subscribe-streams"
            : "no --subscribe-streams count ≥ 5,000";
      verdicts.push(notMeasured(id, target, why));
    } else {
      const health = streamsHeld(mine, a.streams);
      const r = a.perStream.rssAfterGcKiB / b.perStream.rssAfterGcKiB;
      verdicts.push(
        judged(
          id,
          target,
          health.held && a.perStream.rssAfterGcKiB <= b.perStream.rssAfterGcKiB,
          `${r.toFixed(2)}× (${a.perStream.rssAfterGcKiB.toFixed(1)} vs ${b.perStream.rssAfterGcKiB.toFixed(1)} KiB at ` +
            `${at(a.requested)}); ours: ${health.detail}`,
          {
            ours: a.perStream.rssAfterGcKiB,
            sdk: b.perStream.rssAfterGcKiB,
            ratio: r,
            streams: a.requested,
            ...health.figures,
          },
        ),
      );
    }
  }

  // Idle CPU with all streams open: measured once per stream kind at its largest count; every kind
  // measured at ≥ 5,000 must be within the bound.
  {
    const id = "postgres.idleCpu";
    const target = "PostgreSQL: idle CPU at 5,000 open streams ≤ 2 % of a core";
    const kinds = (["task", "subscribe"] as const).flatMap((kind) => {
      const scenario = ours?.streams[kind];
      const largest = scenario?.points.at(-1);
      return scenario && largest && largest.requested >= STREAMS_AT ? [{ kind, scenario, largest }] : [];
    });
    if (kinds.length === 0) {
      const why = !ours
        ? "ours was not run"
        : Object.keys(ours.streams).length === 0
          ? "ours not in --stream-targets"
          : "no stream phase of ours reached 5,000 streams";
      verdicts.push(notMeasured(id, target, why));
    } else {
      const name = { task: "streams+tasks", subscribe: "subscriptions" };
      verdicts.push(
        judged(
          id,
          target,
          kinds.every((k) => k.scenario.idleCpu <= IDLE_CPU_SHARE),
          kinds
            .map((k) => `${(k.scenario.idleCpu * 100).toFixed(1)} % with ${at(k.largest.requested)} ${name[k.kind]}`)
            .join(", "),
          {
            ...Object.fromEntries(kinds.map((k) => [`${k.kind}Percent`, k.scenario.idleCpu * 100])),
            thresholdPercent: IDLE_CPU_SHARE * 100,
          },
        ),
      );
    }
  }

  versusSdk(
    "embedded.tasks",
    "Embedded (PGlite): tasks/s ≥ 0.6× the SDK's",
    embedded,
    "ours-embedded",
    (load) => load.tasks.perSecond,
    0.6,
    "higher",
    "tasks/s",
    0,
    "the tasks phase",
    undefined,
    durableFloorNote("floor-durable-embedded", (load) => load.tasks.perSecond, "tasks/s", 0),
  );
  versusSdk(
    "embedded.firstEvent",
    "Embedded (PGlite): first SSE event p50 ≤ 1.5× the SDK's",
    embedded,
    "ours-embedded",
    (load) => load.ttfe.median,
    1.5,
    "lower",
    "ms",
    2,
    "the first-event phase",
    undefined,
    durableFloorNote("floor-durable-embedded", (load) => load.ttfe.median, "ms", 2),
  );

  // Scale-out has no target: the figure only, on the same list so that nothing asked for is missed.
  for (const s of scaleOut(results)) {
    const id = "scaleOut.tasks";
    const target = `Scale-out (no target): tasks/s with ${s.instances} instances on one PostgreSQL database vs one`;
    const figures = {
      instances: s.instances,
      tasksPerSecond: s.tasksPerSecond,
      single: s.singleTasksPerSecond,
      ratio: s.ratio,
    };
    if (!measured(s.tasksPerSecond)) verdicts.push(notMeasured(id, target, "the tasks phase did not run", figures));
    else {
      verdicts.push({
        id,
        target,
        status: "FIGURE",
        met: null,
        detail: measured(s.ratio)
          ? `${s.ratio.toFixed(2)}× (${fmt(s.tasksPerSecond)} vs ${fmt(s.singleTasksPerSecond)} tasks/s)`
          : `${fmt(s.tasksPerSecond)} tasks/s with ${s.instances}; one instance not measured (ours was not run)`,
        figures,
      });
    }
  }
  verdicts.push(...telemetryVerdicts(results));
  verdicts.push(...restVerdicts(results));
  verdicts.push(...grpcVerdicts(results));
  return verdicts;
}

export function verdictLines(verdicts: Verdict[]): string[] {
  return verdicts.map((v) => `- ${v.target}: ${v.status} — ${v.detail}`);
}
