/**
 * What one slice of `pnpm bench:a2a:ab` (interleaved.ts) measures, phase by phase: each phase runs one
 * slice on one target and returns a value per figure. The figures of issue 43's guard: GetTask requests/s
 * and server CPU per request, tasks/s and server CPU per task, the first event's p50 (sequential starts),
 * and memory per idle stream with a task and per idle subscription (a fresh server on a store of its own
 * each slice, streams.ts).
 */
import { median, ms } from "../metrics/stats.ts";
import { getTaskThroughput, type Lane, sustainedTasks, timeToFirstEvent } from "./load.ts";
import { cpuInWindow, postgresCpuInWindow } from "./proc.ts";
import { measureStreams } from "./streams.ts";
import { createTarget, type RunningServer, type Target, type TargetId } from "./targets.ts";

export type PhaseId = "gettask" | "tasks" | "first-event" | "streams";
/**
 * The phases' default order (`--phases` runs them in the order it names them). A first-event phase after
 * the tasks phase times servers whose sessions lived through that load, where run.ts times fresh ones;
 * without autovacuum that read stale plans (analyze-stand-in.ts).
 */
export const PHASE_IDS: readonly PhaseId[] = ["gettask", "tasks", "first-event", "streams"];

/** A target under test: its one load server, the pool that loads it, and the completed tasks GetTask polls. */
export interface Entry {
  target: Target;
  server: RunningServer;
  lane: Lane;
  taskIds: string[];
}

export interface Settings {
  concurrency: number;
  sliceMs: number;
  warmupMs: number;
  /** Sequential starts per first-event slice. */
  starts: number;
  /** Idle streams with a task, and idle subscriptions, held per streams slice. */
  streams: number;
  subscriptions: number;
  openParallel: number;
  log(line: string): void;
}

/** One slice's figures (by figure key), its failures, and for a rate phase what pooling needs. */
export interface SliceResult {
  values: Record<string, number>;
  failures: number;
  /** Rate phases: operations in the window and the server's CPU seconds in it (pooled over the rounds). */
  operations?: number;
  cpuSeconds?: number;
  /** Tasks phase, a target on PostgreSQL: the cluster's CPU seconds in the window (targets share it). */
  databaseCpuSeconds?: number;
}

export interface FigureSpec {
  key: string;
  name: string;
  better: "higher" | "lower";
  format(value: number): string;
  /** Over all of a target's slices (rate phases): everything done over the whole time, the CPU over it. */
  pooled?(slices: readonly SliceResult[], settings: Settings): number;
  /** The target the OpenTelemetry bound (at most 5 % below ours) is about. */
  telemetryBound?: boolean;
}

export interface PhaseSpec {
  title: string;
  figures: FigureSpec[];
  run(entry: Entry, settings: Settings): Promise<SliceResult>;
}

const sum = (slices: readonly SliceResult[], get: (s: SliceResult) => number | undefined) =>
  slices.reduce((total, s) => total + (get(s) ?? 0), 0);
const pooledRate = (slices: readonly SliceResult[], settings: Settings) =>
  sum(slices, (s) => s.operations) / ((slices.length * settings.sliceMs) / 1000);
/** CPU seconds per operation over all slices (the server's, or the `field` named), × `scale`. */
const pooledCpu =
  (scale: number, field: "cpuSeconds" | "databaseCpuSeconds" = "cpuSeconds") =>
  (slices: readonly SliceResult[]) =>
    (sum(slices, (s) => s[field]) / sum(slices, (s) => s.operations)) * scale;

async function rateSlice(phase: "gettask" | "tasks", entry: Entry, settings: Settings): Promise<SliceResult> {
  const options = { concurrency: settings.concurrency, warmupMs: settings.warmupMs, durationMs: settings.sliceMs };
  const cpu = cpuInWindow(entry.server.pid, settings.warmupMs, settings.sliceMs);
  // Only where the store is PostgreSQL: embedded, the database's CPU is the server's own.
  const databaseCpu =
    phase === "tasks" && entry.target.onPostgres ? postgresCpuInWindow(settings.warmupMs, settings.sliceMs) : undefined;
  const run =
    phase === "gettask"
      ? await getTaskThroughput(entry.lane.pool, entry.lane.endpoint, entry.taskIds, options).then((r) => ({
          operations: r.requests,
          failures: r.errors,
        }))
      : await sustainedTasks([entry.lane], options).then((r) => ({ operations: r.completed, failures: r.failures }));
  const cpuSeconds = await cpu;
  const databaseCpuSeconds = await databaseCpu;
  const scale = phase === "gettask" ? 1e6 : 1e3;
  return {
    values: {
      rate: run.operations / (settings.sliceMs / 1000),
      cpu: (cpuSeconds / Math.max(1, run.operations)) * scale,
      ...(databaseCpuSeconds === undefined ? {} : { dbcpu: (databaseCpuSeconds / Math.max(1, run.operations)) * 1e3 }),
    },
    failures: run.failures,
    operations: run.operations,
    cpuSeconds,
    ...(databaseCpuSeconds === undefined ? {} : { databaseCpuSeconds }),
  };
}

/** Each streams slice on a fresh target (store and seed of its own), as run.ts measures streams. */
async function streamsSlice(id: TargetId, settings: Settings): Promise<SliceResult> {
  const values: Record<string, number> = {};
  let failures = 0;
  const options = { openParallel: settings.openParallel, idleCpuMs: 0, log: settings.log };
  for (const [kind, count] of [
    ["task", settings.streams],
    ["subscribe", settings.subscriptions],
  ] as const) {
    if (count === 0) continue;
    const target = await createTarget(id);
    try {
      const scenario = await measureStreams(target, kind, { ...options, counts: [count] });
      values[kind] = scenario.points[0]?.perStream.rssAfterGcKiB ?? Number.NaN;
      failures += scenario.failedToOpen + scenario.dropped;
    } finally {
      await target.dispose();
    }
  }
  return { values, failures };
}

const whole = (n: number) => n.toFixed(0);

/** A rate slice's throughput, pooled over the slices' windows. */
function rateFigure(name: string): FigureSpec {
  return { key: "rate", name, better: "higher", format: whole, pooled: pooledRate, telemetryBound: true };
}

/** A rate slice's server CPU per unit of work, in 1/`scale` s, shown with `digits` decimals. */
function cpuFigure(name: string, scale: number, digits: number): FigureSpec {
  return { key: "cpu", name, better: "lower", format: (n) => n.toFixed(digits), pooled: pooledCpu(scale) };
}

export const PHASES: Record<PhaseId, PhaseSpec> = {
  gettask: {
    title: "GetTask",
    figures: [rateFigure("GetTask requests/s"), cpuFigure("server CPU per GetTask (µs)", 1e6, 1)],
    run: (entry, settings) => rateSlice("gettask", entry, settings),
  },
  tasks: {
    title: "tasks/s",
    figures: [
      rateFigure("tasks/s"),
      cpuFigure("server CPU per task (ms)", 1e3, 3),
      // Its work per task shares the host's cores with the server's (targets on PostgreSQL only).
      {
        key: "dbcpu",
        name: "PostgreSQL CPU per task (ms)",
        better: "lower",
        format: (n) => n.toFixed(3),
        pooled: pooledCpu(1e3, "databaseCpuSeconds"),
      },
    ],
    run: (entry, settings) => rateSlice("tasks", entry, settings),
  },
  "first-event": {
    title: "first event",
    figures: [{ key: "p50", name: "first SSE event p50 (ms)", better: "lower", format: ms }],
    async run(entry, settings) {
      const run = await timeToFirstEvent(entry.lane.pool, entry.lane.endpoint, { starts: settings.starts, warmups: 5 });
      entry.taskIds.push(...run.taskIds);
      return { values: { p50: median(run.ms) }, failures: settings.starts - run.completed };
    },
  },
  streams: {
    title: "memory per idle stream",
    figures: [
      { key: "task", name: "RSS KiB per idle stream+task (after GC)", better: "lower", format: (n) => n.toFixed(1) },
      {
        key: "subscribe",
        name: "RSS KiB per idle subscription (after GC)",
        better: "lower",
        format: (n) => n.toFixed(1),
      },
    ],
    run: (entry, settings) => streamsSlice(entry.target.id, settings),
  },
};
