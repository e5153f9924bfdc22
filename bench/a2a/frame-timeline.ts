/**
 * Where a task's time goes under the tasks/s load, seen from the client: each target in turn under the
 * bench's load (concurrent clients each starting a task and following its stream to the end), recording
 * when each SSE frame of each task arrived; prints, per frame index, the median time after the request was
 * sent over the last tasks of the window, with tasks/s and the server's CPU per task. Several passes
 * alternate the targets, so each meets the host's slow and fast minutes.
 *
 *   node bench/a2a/frame-timeline.ts                                  # ours and sdk, 2 passes of 8 s
 *   A2A_BENCH_BASE=main node bench/a2a/frame-timeline.ts --targets ours-base,ours --passes 3
 *
 * Flags: --targets (single-instance targets of run.ts), --passes, --window (seconds), --warmup (seconds),
 * --concurrency, --last (tasks counted per pass, the newest), --node-options (for the servers, e.g. an `--import`
 * hook such as statement-timing-hook.ts), --alloc-profile (a file: V8's sampling heap profile of every allocation
 * over the window is saved there and summarised beside the tasks the window completed). Investigation tool, not
 * part of the bench run.
 */
import { writeFileSync } from "node:fs";
import { benchFlags } from "../flags.ts";
import { median } from "../metrics/stats.ts";
import { summarizeHeapProfile } from "./heap-sampling.ts";
import { startHeapSampling } from "./inspector.ts";
import { createPool, openStream, startBody, tasksInWindow } from "./load.ts";
import { cpuInWindow } from "./proc.ts";
import { createTarget, type TargetId } from "./targets.ts";

const args = benchFlags({
  targets: "ours,sdk",
  passes: "2",
  window: "8",
  warmup: "2",
  concurrency: "32",
  last: "2000",
  "node-options": "",
  "alloc-profile": "",
});
const nodeOptions = args["node-options"].split(" ").filter(Boolean);
const ids = args.targets.split(",").filter(Boolean) as TargetId[];
const passes = Number(args.passes);
const concurrency = Number(args.concurrency);
const last = Number(args.last);

/** Each counted task's frames, ms after its request was sent, in arrival order. */
type Timeline = number[];

async function pass(id: TargetId): Promise<string> {
  const target = await createTarget(id);
  if (target.instances !== 1) throw new Error(`${id} runs ${target.instances} instances; pick a single one`);
  const allocProfile = args["alloc-profile"];
  const server = await target.start("load", { nodeOptions, inspect: allocProfile !== "" });
  const pool = createPool(server.origin, concurrency + 2);
  const endpoint = { origin: server.origin, path: target.path, dialect: target.dialect };
  const timelines: { endAt: number; frames: Timeline }[] = [];
  try {
    const warmupMs = Number(args.warmup) * 1000;
    const durationMs = Number(args.window) * 1000;
    const cpuSeconds = cpuInWindow(server.pid, warmupMs, durationMs);
    const sampling = allocProfile ? allocationsInWindow(server.inspector, warmupMs, durationMs) : undefined;
    const run = await tasksInWindow({ concurrency, warmupMs, durationMs }, async (_worker, messageId) => {
      const frames: Timeline = [];
      const stream = await openStream(pool, endpoint, startBody(endpoint, messageId), (_frame, at) => {
        frames.push(at);
      });
      const end = await stream.ended;
      if (end.terminal === "completed") {
        timelines.push({ endAt: end.at, frames: frames.map((at) => at - stream.sentAt) });
      }
      return { sentAt: stream.sentAt, endAt: end.at, terminal: end.terminal };
    });
    const cpu = await cpuSeconds;
    const profile = await sampling;
    if (profile) {
      writeFileSync(allocProfile, JSON.stringify(profile));
      const [sampled, ...rest] = summarizeHeapProfile(profile, 25);
      console.error(`${target.label}: ${sampled}, ${run.completed} tasks in the window\n${rest.join("\n")}`);
    }
    const counted = timelines.sort((a, b) => a.endAt - b.endAt).slice(-last);
    const width = Math.max(...counted.map((t) => t.frames.length));
    const columns = Array.from({ length: width }, (_, i) =>
      median(counted.flatMap((t) => (t.frames.length > i ? [t.frames[i] as number] : []))).toFixed(1),
    );
    const perTask = run.completed > 0 ? ((cpu * 1000) / run.completed).toFixed(2) : "–";
    return `| ${target.label} | ${run.perSecond.toFixed(0)} | ${perTask} | ${counted.length} | ${columns.join(", ")} |`;
  } finally {
    await pool.close();
    await server.kill("SIGTERM");
    await target.dispose();
  }
}

/** Every allocation sampled from the end of the warm-up to the end of the window. */
async function allocationsInWindow(inspector: string | undefined, delayMs: number, durationMs: number) {
  if (!inspector) throw new Error("the server has no inspector");
  await new Promise((resolve) => setTimeout(resolve, delayMs));
  const stop = await startHeapSampling(inspector, { allocated: true, samplingInterval: 16 * 1024 });
  await new Promise((resolve) => setTimeout(resolve, durationMs));
  return stop();
}

console.log(
  `${concurrency} clients, ${passes} passes of ${args.window} s after ${args.warmup} s; frames: median ms after the request`,
);
console.log("| target | tasks/s | server CPU per task (ms) | tasks | frames |");
console.log("|---|---:|---:|---:|---|");
for (let p = 0; p < passes; p++) {
  const order = p % 2 === 0 ? ids : [...ids].reverse();
  for (const id of order) console.log(await pass(id));
}
