/**
 * A/B in alternating slices: GetTask, tasks/s (each with server CPU), the first event and memory per idle
 * stream and subscription of several targets, all running at once and loaded one at a time in short
 * slices, round after round, the order rotated each round. On a shared
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
 *   A2A_BENCH_BASE=main pnpm bench:a2a:ab --targets ours-base,ours   # issue 43's guard: all six figures
 *   pnpm bench:a2a:ab --targets sdk,floor-durable,ours --phases first-event   # the durable first event's floor
 *
 * Memory (the streams phase) against an earlier commit: give A2A_BENCH_BASE a plain checkout's root (`git
 * worktree add`, `pnpm install`), not the commit. A commit is run from its export under .cache/releases,
 * and a server run from there starts ~10 MiB higher than the same code in place (bench/NOTES.md, eighth
 * session): ~2 KiB a stream at 5,000 in the base's favour.
 *
 * Flags: --targets (single-instance targets of run.ts, the first is the baseline), --phases (gettask,
 * tasks, first-event, streams, run in the order given; default all), --rounds, --slice and --warmup
 * (seconds per slice; the warm-up is not counted), --concurrency, --starts (sequential starts per
 * first-event slice), --stream-rounds (rounds of the streams phase, default 3: each slice starts a fresh
 * server on a store of its own), --streams and --subscribe-streams (idle streams held per slice; 0 skips
 * one), --open-parallel, --json. A round before the first is run uncounted, so every server is warm (JIT,
 * connections, caches); not for streams, whose every slice is a fresh server. What each phase measures:
 * interleaved-phases.ts; the comparison (median of rounds with spread, pooled for rates, "within the
 * spread" when the rounds disagree on the sign of the change): interleaved-report.ts.
 */
import { POSTGRES_URL } from "../../examples/server/test/support/backends.ts";
import { benchFlags } from "../flags.ts";
import { startAnalyzeStandIn } from "./analyze-stand-in.ts";
import { type Entry, PHASE_IDS, PHASES, type PhaseId, type Settings, type SliceResult } from "./interleaved-phases.ts";
import { type Comparison, compare, table, verdictLines } from "./interleaved-report.ts";
import { createPool, timeToFirstEvent } from "./load.ts";
import { createTarget, type RunningServer, type TargetId } from "./targets.ts";

const args = benchFlags(
  {
    targets: "ours,ours-otel-metrics,ours-otel-sampled,ours-otel",
    phases: PHASE_IDS.join(","),
    rounds: "6",
    slice: "5",
    warmup: "1",
    concurrency: "32",
    starts: "100",
    "stream-rounds": "3",
    streams: "1000",
    "subscribe-streams": "1000",
    "open-parallel": "64",
  },
  ["json"],
);

const list = (value: string) =>
  value
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
const targetIds = list(args.targets) as TargetId[];
const phaseIds = list(args.phases) as PhaseId[];
const rounds = Number(args.rounds);
const streamRounds = Number(args["stream-rounds"]);
const settings: Settings = {
  concurrency: Number(args.concurrency),
  sliceMs: Number(args.slice) * 1000,
  warmupMs: Number(args.warmup) * 1000,
  starts: Number(args.starts),
  streams: Number(args.streams),
  subscriptions: Number(args["subscribe-streams"]),
  openParallel: Number(args["open-parallel"]),
  log,
};

function validate(): void {
  if (targetIds.length < 2) throw new Error("--targets: a baseline and at least one more");
  if (new Set(targetIds).size !== targetIds.length) throw new Error("--targets: each once");
  if (targetIds.includes("ours-2x")) throw new Error("--targets: single-instance targets only (not ours-2x)");
  // Slices are loaded over HTTP (load.ts); a gRPC target would be loaded over its JSON-RPC port instead.
  if (targetIds.some((t) => t.includes("-grpc"))) throw new Error("--targets: HTTP targets only (gRPC: run.ts)");
  if (phaseIds.includes("streams") && targetIds.includes("ours-rest")) {
    throw new Error("--phases streams: ours-rest is a load target only");
  }
  if (phaseIds.length === 0 || !phaseIds.every((p) => PHASE_IDS.includes(p))) {
    throw new Error(`--phases: ${PHASE_IDS.join(", ")}`);
  }
  const { concurrency, sliceMs, warmupMs, starts, streams, subscriptions, openParallel } = settings;
  const positive = [rounds, streamRounds, sliceMs, concurrency, starts, openParallel].every(
    (n) => Number.isInteger(n) && n > 0,
  );
  const counts = [streams, subscriptions].every((n) => Number.isInteger(n) && n >= 0);
  if (!positive || !counts || !(warmupMs >= 0)) {
    throw new Error(
      "--rounds, --stream-rounds, --slice, --concurrency, --starts and --open-parallel must be positive integers, " +
        "--streams and --subscribe-streams non-negative ones, --warmup non-negative",
    );
  }
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** Round r loads the targets in the order rotated by r, so each one takes every position in turn. */
function rotated<T>(items: readonly T[], by: number): T[] {
  const k = by % items.length;
  return [...items.slice(k), ...items.slice(0, k)];
}

async function start(id: TargetId): Promise<Entry> {
  const target = await createTarget(id);
  let server: RunningServer | undefined;
  let pool: Entry["lane"]["pool"] | undefined;
  try {
    if (target.instances !== 1) throw new Error(`${id} is not a single-instance target`);
    server = await target.start("load");
    pool = createPool(server.origin, settings.concurrency + 2);
    const lane = { pool, endpoint: { origin: server.origin, path: target.path, dialect: target.dialect } };
    // Completed tasks for GetTask to poll, made the way run.ts makes them.
    const { taskIds } = await timeToFirstEvent(lane.pool, lane.endpoint, { starts: 200, warmups: 0 });
    return { target, server, lane, taskIds };
  } catch (error) {
    await pool?.close().catch(() => undefined);
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

function describe(phase: PhaseId, slice: SliceResult): string {
  return PHASES[phase].figures
    .filter((f) => slice.values[f.key] !== undefined)
    .map((f) => `${f.format(slice.values[f.key] as number)} ${f.name}`)
    .join(", ");
}

async function main(): Promise<void> {
  validate();
  const started = Date.now();
  const entries: Entry[] = [];
  const results: Comparison[] = [];
  const allSlices: Record<string, Record<string, SliceResult[]>> = {};
  const analyze = await startAnalyzeStandIn(POSTGRES_URL);
  try {
    for (const id of targetIds) {
      log(`starting ${id} …`);
      entries.push(await start(id));
    }
    for (const phase of phaseIds) {
      const spec = PHASES[phase];
      const fresh = phase === "streams";
      const counted = fresh ? streamRounds : rounds;
      const slices = new Map<TargetId, SliceResult[]>(targetIds.map((id) => [id, []]));
      log(
        `\n${spec.title}: ${counted} rounds` +
          (fresh ? " (a fresh server and store each slice)" : `, one uncounted first`),
      );
      // A streams slice starts a fresh server: nothing to warm up.
      for (let round = fresh ? 0 : -1; round < counted; round++) {
        // One slice per target per round: index i of every target's list is round i.
        for (const entry of rotated(entries, Math.max(0, round))) {
          const slice = await spec.run(entry, settings);
          if (round >= 0) (slices.get(entry.target.id) as SliceResult[]).push(slice);
          log(`  ${round < 0 ? "warm-up" : `round ${round + 1}`} ${entry.target.id}: ${describe(phase, slice)}`);
        }
      }
      const labels = entries.map((e) => ({ id: e.target.id, label: e.target.label }));
      results.push(...compare(phase, spec.figures, labels, slices, settings));
      allSlices[phase] = Object.fromEntries(slices);
    }
  } finally {
    await analyze.stop();
    for (const entry of entries) await stop(entry).catch(() => undefined);
  }
  const { concurrency, sliceMs, warmupMs } = settings;
  const lines = [
    "",
    `Interleaved A/B: ${targetIds.join(", ")}; ${concurrency} concurrent clients; ${rounds} counted rounds of ` +
      `${sliceMs / 1000} s slices after ${warmupMs / 1000} s warm-up each (first event: ${settings.starts} ` +
      `sequential starts a slice; streams: ${streamRounds} rounds, ${settings.streams} streams and ` +
      `${settings.subscriptions} subscriptions a slice), the order rotated every round. A change is ` +
      `"within the spread" when its rounds disagree on its sign: no difference this host resolved.`,
    ...(analyze.note ? [analyze.note] : []),
    "",
  ];
  for (const phase of phaseIds) {
    lines.push(
      ...table(
        PHASES[phase].title,
        PHASES[phase].figures,
        results.filter((r) => r.phase === phase),
      ),
      "",
    );
  }
  const verdicts = verdictLines(results, rounds);
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
