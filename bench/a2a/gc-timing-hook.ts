/**
 * A `--import` hook for an investigation (not part of a bench run): in the process it is loaded into, it
 * sums V8's garbage collections by kind (minor: scavenges; major: mark-compact; incremental marking; weak
 * callbacks) from `PerformanceObserver`'s `gc` entries, and writes their counts and milliseconds with the
 * process's command line and CPU time (all its threads) to `<tmpdir>/a2a-gc-<pid>-<thread>.json` every second: the bench kills its
 * servers with SIGKILL, so no exit hook would run, and passes them no environment of its own. Pauses only:
 * the work of V8's helper threads (parallel scavenges, concurrent marking) is in the CPU time, not here.
 *
 *   pnpm bench:a2a --targets ours,sdk --stream-targets "" --phases tasks --rounds 1 \
 *     --node-options=--import=$PWD/bench/a2a/gc-timing-hook.ts
 */
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { constants, PerformanceObserver } from "node:perf_hooks";
import { threadId } from "node:worker_threads";

const KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weak callbacks",
};
const totals: Record<string, { count: number; ms: number }> = {};

new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const kind = KINDS[(entry.detail as { kind: number }).kind] ?? "other";
    const total = totals[kind] ?? { count: 0, ms: 0 };
    totals[kind] = total;
    total.count++;
    total.ms += entry.duration;
  }
}).observe({ entryTypes: ["gc"] });

// Each thread loads the hook (a worker thread too, with a heap of its own): a file per thread.
const out = join(tmpdir(), `a2a-gc-${process.pid}-${threadId}.json`);
setInterval(() => {
  const { user, system } = process.cpuUsage();
  writeFileSync(
    out,
    JSON.stringify({
      process: process.argv.slice(1),
      execArgv: process.execArgv,
      cpuMs: (user + system) / 1000,
      gc: totals,
    }),
  );
}, 1_000).unref();
