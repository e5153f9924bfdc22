/**
 * Whether throughput holds as the store fills: one server under the tasks/s load of the bench (concurrent
 * clients each starting a task and following it to its end) for several windows back to back, printing
 * tasks/s, the server's CPU per task and its RSS after each window. A server whose statements grow with
 * its tables shows it here within a minute (the embedded store lost a fifth to a half of its tasks/s that
 * way before its batch updates used the index and PGlite got a stand-in for autovacuum; see
 * bench/NOTES.md).
 *
 *   node bench/a2a/sustained-windows.ts                                   # ours-embedded, 6 windows of 8 s
 *   node bench/a2a/sustained-windows.ts --target ours --windows 10 --window 15
 *
 * Flags: --target (a single-instance target of run.ts), --windows, --window (seconds each), --concurrency.
 * Investigation tool, not part of the bench run.
 */
import { benchFlags } from "../flags.ts";
import { createPool, sustainedTasks } from "./load.ts";
import { cpuSeconds, rssKiB } from "./proc.ts";
import { createTarget, type TargetId } from "./targets.ts";

const args = benchFlags({ target: "ours-embedded", windows: "6", window: "8", concurrency: "32" });
const windows = Number(args.windows);
const windowMs = Number(args.window) * 1000;
const concurrency = Number(args.concurrency);

const target = await createTarget(args.target as TargetId);
if (target.instances !== 1) throw new Error(`${target.id} runs ${target.instances} instances; pick a single one`);
const server = await target.start("load");
const pool = createPool(server.origin, concurrency + 2);
const endpoint = { origin: server.origin, path: target.path, dialect: target.dialect };
try {
  console.log(`${target.label} (${target.store}): ${concurrency} clients, ${windows} windows of ${windowMs / 1000} s`);
  const started = performance.now();
  for (let w = 1; w <= windows; w++) {
    const cpuBefore = await cpuSeconds(server.pid);
    const run = await sustainedTasks([{ pool, endpoint }], { concurrency, warmupMs: 0, durationMs: windowMs });
    const cpu = (await cpuSeconds(server.pid)) - cpuBefore;
    const at = ((performance.now() - started) / 1000).toFixed(0);
    const perTask = run.completed > 0 ? ((cpu * 1000) / run.completed).toFixed(2) : "–";
    const rssMiB = ((await rssKiB(server.pid)) / 1024).toFixed(0);
    console.log(
      `  window ${w} (to ${at} s): ${run.perSecond.toFixed(0)} tasks/s, ${perTask} ms CPU per task, ` +
        `${rssMiB} MiB RSS, ${run.failures} failures`,
    );
  }
} finally {
  await pool.close();
  await server.kill("SIGTERM");
  await target.dispose();
}
