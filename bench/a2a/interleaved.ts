/**
 * A/B in alternating slices: the GetTask and tasks/s load of several targets, all running at once and
 * loaded one at a time in short slices, round after round, the order rotated each round. On a shared
 * two-core machine two sequential runs of the same server differ by up to a third (docs/performance.md,
 * "What the figures mean"), which hides a 5 % cost; slices side by side in time share the machine's slow
 * and fast minutes, so what is left between two targets is their own difference. The first target is the
 * baseline every other is compared with; built for the OpenTelemetry target (with an SDK registered, at
 * most 5 % below ours), whose verdict is printed for each OpenTelemetry target when the baseline is `ours`.
 *
 *   pnpm bench:a2a:ab                       # ours vs metrics only, 10 % of traces, every span; ~7 min
 *   pnpm bench:a2a:ab --targets ours,ours-otel-sampled --phases gettask --rounds 10 --slice 5
 *   pnpm bench:a2a:ab --json                # one more line: every slice's figures and the verdicts
 *
 * Flags: --targets (single-instance targets of run.ts, the first is the baseline), --phases (gettask,
 * tasks), --rounds, --slice and --warmup (seconds per slice; the warm-up is not counted), --concurrency,
 * --json. A round before the first is run uncounted, so every server is warm (JIT, connections, caches).
 * Figures per target: the pooled rate (everything it did in its counted slices over their time) and its
 * server CPU per request or task; against the baseline, the pooled change and the spread of the
 * per-round changes (the same round's slices, next to each other in time).
 */
import { benchFlags } from "../flags.ts";
import { median, ms } from "../metrics/stats.ts";
import { createPool, getTaskThroughput, type Lane, sustainedTasks, timeToFirstEvent } from "./load.ts";
import { cpuInWindow } from "./proc.ts";
import { createTarget, type RunningServer, type Target, type TargetId } from "./targets.ts";

const args = benchFlags(
  {
    targets: "ours,ours-otel-metrics,ours-otel-sampled,ours-otel",
    phases: "gettask,tasks",
    rounds: "6",
    slice: "5",
    warmup: "1",
    concurrency: "32",
  },
  ["json"],
);

const PHASES = {
  gettask: { name: "GetTask requests/s", unit: "requests", cpuScale: 1e6, cpuUnit: "µs CPU per request" },
  tasks: { name: "tasks/s", unit: "tasks", cpuScale: 1e3, cpuUnit: "ms CPU per task" },
} as const;
type PhaseId = keyof typeof PHASES;

/** The cost the OpenTelemetry target allows: at most 5 % below the baseline, ours without an SDK. */
const COST_BOUND = 0.05;
const TELEMETRY_TARGETS: readonly TargetId[] = ["ours-otel-metrics", "ours-otel-sampled", "ours-otel"];

const list = (value: string) =>
  value
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
const targetIds = list(args.targets) as TargetId[];
const phaseIds = list(args.phases) as PhaseId[];
const rounds = Number(args.rounds);
const sliceMs = Number(args.slice) * 1000;
const warmupMs = Number(args.warmup) * 1000;
const concurrency = Number(args.concurrency);

function validate(): void {
  if (targetIds.length < 2) throw new Error("--targets: a baseline and at least one more");
  if (new Set(targetIds).size !== targetIds.length) throw new Error("--targets: each once");
  if (targetIds.includes("ours-2x")) throw new Error("--targets: single-instance targets only (not ours-2x)");
  // Slices are loaded over HTTP (load.ts); a gRPC target would be loaded over its JSON-RPC port instead.
  if (targetIds.some((t) => t.includes("-grpc"))) throw new Error("--targets: HTTP targets only (gRPC: run.ts)");
  if (phaseIds.length === 0 || !phaseIds.every((p) => p in PHASES)) throw new Error("--phases: gettask, tasks");
  const positive = [rounds, sliceMs, concurrency].every((n) => Number.isInteger(n) && n > 0);
  if (!positive || !(warmupMs >= 0)) {
    throw new Error("--rounds, --slice and --concurrency must be positive integers, --warmup non-negative");
  }
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** A target under test: its one server, the pool that loads it, and the completed tasks GetTask polls. */
interface Entry {
  target: Target;
  server: RunningServer;
  lane: Lane;
  taskIds: string[];
}

/** What one slice measured: operations done in its window and the server's CPU seconds in that window. */
interface Slice {
  round: number;
  operations: number;
  failures: number;
  cpuSeconds: number;
}

async function runSlice(phase: PhaseId, entry: Entry): Promise<Omit<Slice, "round">> {
  const options = { concurrency, warmupMs, durationMs: sliceMs };
  const cpu = cpuInWindow(entry.server.pid, warmupMs, sliceMs);
  if (phase === "gettask") {
    const run = await getTaskThroughput(entry.lane.pool, entry.lane.endpoint, entry.taskIds, options);
    return { operations: run.requests, failures: run.errors, cpuSeconds: await cpu };
  }
  const run = await sustainedTasks([entry.lane], options);
  return { operations: run.completed, failures: run.failures, cpuSeconds: await cpu };
}

/** Round r loads the targets in the order rotated by r, so each one takes every position in turn. */
function rotated<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

async function start(id: TargetId): Promise<Entry> {
  const target = await createTarget(id);
  let server: RunningServer | undefined;
  let lane: Lane | undefined;
  try {
    if (target.instances !== 1) throw new Error(`${id} is not a single-instance target`);
    server = await target.start("load");
    lane = {
      pool: createPool(server.origin, concurrency + 2),
      endpoint: { origin: server.origin, path: target.path, dialect: target.dialect },
    };
    // Completed tasks for GetTask to poll, made the way run.ts makes them.
    const { taskIds } = await timeToFirstEvent(lane.pool, lane.endpoint, { starts: 200, warmups: 0 });
    return { target, server, lane, taskIds };
  } catch (error) {
    await lane?.pool.close().catch(() => undefined);
    await server?.kill();
    await target.dispose();
    throw error;
  }
}

async function stop(entry: Entry): Promise<void> {
  await entry.lane.pool.close().catch(() => undefined);
  await entry.server.kill();
  await entry.target.dispose();
}

interface Comparison {
  phase: PhaseId;
  target: TargetId;
  label: string;
  perSecond: number;
  cpuPerOperation: number;
  failures: number;
  /** Against the baseline; undefined for the baseline itself. */
  versus?: {
    rateChange: number;
    cpuChange: number;
    roundRateChanges: number[];
    roundCpuChanges: number[];
    /** Only for an OpenTelemetry target against ours: the target is about those. */
    status?: "MET" | "NOT MET";
  };
}

function compare(phase: PhaseId, entries: Entry[], slices: Map<TargetId, Slice[]>): Comparison[] {
  const seconds = rounds * (sliceMs / 1000);
  const pooled = (id: TargetId) => {
    const own = slices.get(id) ?? [];
    const operations = own.reduce((sum, s) => sum + s.operations, 0);
    const cpu = own.reduce((sum, s) => sum + s.cpuSeconds, 0);
    return { perSecond: operations / seconds, cpuPerOperation: cpu / operations, own };
  };
  const [baseline] = entries as [Entry];
  const base = pooled(baseline.target.id);
  return entries.map((entry) => {
    const mine = pooled(entry.target.id);
    const comparison: Comparison = {
      phase,
      target: entry.target.id,
      label: entry.target.label,
      perSecond: mine.perSecond,
      cpuPerOperation: mine.cpuPerOperation,
      failures: mine.own.reduce((sum, s) => sum + s.failures, 0),
    };
    if (entry === baseline) return comparison;
    const rateChange = mine.perSecond / base.perSecond - 1;
    comparison.versus = {
      rateChange,
      cpuChange: mine.cpuPerOperation / base.cpuPerOperation - 1,
      roundRateChanges: mine.own.map((s, i) => s.operations / (base.own[i] as Slice).operations - 1),
      roundCpuChanges: mine.own.map((s, i) => {
        const b = base.own[i] as Slice;
        return s.cpuSeconds / s.operations / (b.cpuSeconds / b.operations) - 1;
      }),
      ...(baseline.target.id === "ours" && TELEMETRY_TARGETS.includes(entry.target.id)
        ? { status: -rateChange <= COST_BOUND ? ("MET" as const) : ("NOT MET" as const) }
        : {}),
    };
    return comparison;
  });
}

const percent = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)} %`;
const spread = (xs: number[]) =>
  `median ${percent(median(xs))}, ${percent(Math.min(...xs))} to ${percent(Math.max(...xs))}`;

function table(phase: PhaseId, comparisons: Comparison[]): string[] {
  const { name, cpuScale, cpuUnit } = PHASES[phase];
  const [baseline] = comparisons as [Comparison];
  const lines = [
    `| ${name} | pooled | ${cpuUnit} | rate vs ${baseline.label}: pooled; per round | CPU vs ${baseline.label}: pooled; per round | failures |`,
    "|---|---:|---:|---|---|---:|",
  ];
  for (const c of comparisons) {
    const v = c.versus;
    lines.push(
      `| ${c.label} | ${c.perSecond.toFixed(0)} | ${(c.cpuPerOperation * cpuScale).toFixed(phase === "gettask" ? 1 : 3)} | ` +
        `${v ? `${percent(v.rateChange)}; ${spread(v.roundRateChanges)}` : "baseline"} | ` +
        `${v ? `${percent(v.cpuChange)}; ${spread(v.roundCpuChanges)}` : "baseline"} | ${c.failures} |`,
    );
  }
  return lines;
}

function verdictLines(comparisons: Comparison[]): string[] {
  const [baseline] = comparisons as [Comparison];
  return comparisons.flatMap((c) => {
    if (!c.versus?.status) return [];
    const cost = -c.versus.rateChange;
    return [
      `- ${c.label}: ${PHASES[c.phase].name} at most ${COST_BOUND * 100} % below ${baseline.label}: ` +
        `${c.versus.status} — ${cost >= 0 ? `${(cost * 100).toFixed(1)} % below` : `${(-cost * 100).toFixed(1)} % above`} ` +
        `(${c.perSecond.toFixed(0)} vs ${baseline.perSecond.toFixed(0)}, pooled over ${rounds} alternating ` +
        `slices each); server CPU ${percent(c.versus.cpuChange)} per ${PHASES[c.phase].unit.replace(/s$/, "")}`,
    ];
  });
}

async function main(): Promise<void> {
  validate();
  const started = Date.now();
  const entries: Entry[] = [];
  const results: Comparison[] = [];
  const allSlices: Record<string, Record<string, Slice[]>> = {};
  try {
    for (const id of targetIds) {
      log(`starting ${id} …`);
      entries.push(await start(id));
    }
    for (const phase of phaseIds) {
      const slices = new Map<TargetId, Slice[]>(targetIds.map((id) => [id, []]));
      log(
        `\n${PHASES[phase].name}: ${rounds} rounds of ${sliceMs / 1000} s slices (+${warmupMs / 1000} s warm-up), one round uncounted first`,
      );
      for (let round = -1; round < rounds; round++) {
        // One slice per target per round: index i of every target's list is round i.
        for (const entry of rotated(entries, Math.max(0, round))) {
          const slice = await runSlice(phase, entry);
          if (round >= 0) (slices.get(entry.target.id) as Slice[]).push({ round, ...slice });
          log(
            `  ${round < 0 ? "warm-up" : `round ${round + 1}`} ${entry.target.id}: ` +
              `${(slice.operations / (sliceMs / 1000)).toFixed(0)}/s, ` +
              `${ms((slice.cpuSeconds / Math.max(1, slice.operations)) * 1000)} ms CPU each`,
          );
        }
      }
      results.push(...compare(phase, entries, slices));
      allSlices[phase] = Object.fromEntries(slices);
    }
  } finally {
    for (const entry of entries) await stop(entry).catch(() => undefined);
  }
  const lines = [
    "",
    `Interleaved A/B: ${targetIds.join(", ")}; ${concurrency} concurrent clients; ${rounds} counted rounds of ` +
      `${sliceMs / 1000} s slices after ${warmupMs / 1000} s warm-up each, the order rotated every round.`,
    "",
  ];
  for (const phase of phaseIds)
    lines.push(
      ...table(
        phase,
        results.filter((r) => r.phase === phase),
      ),
      "",
    );
  const verdicts = phaseIds.flatMap((phase) => verdictLines(results.filter((r) => r.phase === phase)));
  if (verdicts.length > 0) lines.push("OpenTelemetry targets (against ours):", ...verdicts);
  lines.push("", `Total time ${((Date.now() - started) / 1000).toFixed(0)} s.`, "");
  process.stdout.write(lines.join("\n"));
  if (args.switches.has("json"))
    process.stdout.write(
      `${JSON.stringify({ settings: { ...args, switches: [...args.switches] }, results, slices: allSlices })}\n`,
    );
}

main().catch((error: unknown) => {
  process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
