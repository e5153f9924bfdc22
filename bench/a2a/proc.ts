/** A server process seen from outside, through /proc (Linux): resident memory and CPU time. */
import { execFileSync } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { median } from "../metrics/stats.ts";

/** VmRSS of the process, in KiB. */
export async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]);
}

/**
 * RSS once the process has settled: waits `settleMs`, then takes `samples` readings `everyMs` apart and
 * returns their median (no GC can be forced from outside, and the product exposes no hook for it).
 */
export async function settledRssKiB(pid: number, { settleMs = 3_000, samples = 5, everyMs = 500 } = {}) {
  await sleep(settleMs);
  const readings: number[] = [];
  for (let i = 0; i < samples; i++) {
    if (i > 0) await sleep(everyMs);
    readings.push(await rssKiB(pid));
  }
  return median(readings);
}

let ticksPerSecond: number | undefined;

/** User + system CPU time the process has used so far, in seconds. */
export async function cpuSeconds(pid: number): Promise<number> {
  return cpuSecondsOf(await readFile(`/proc/${pid}/stat`, "utf8"));
}

/** User + system CPU seconds from a `/proc/<pid>/stat` line. */
function cpuSecondsOf(stat: string): number {
  ticksPerSecond ??= clockTicks();
  // Fields after the command name (which may contain spaces) start at ") "; utime and stime are 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}

/** User + system CPU seconds so far of each process named `postgres` on this host, by pid. */
async function postgresCpuByPid(): Promise<Map<string, number>> {
  const byPid = new Map<string, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, "utf8").catch(() => "");
    if (stat.includes("(postgres)")) byPid.set(entry, cpuSecondsOf(stat));
  }
  return byPid;
}

/**
 * CPU seconds the PostgreSQL cluster on this host (every process named `postgres`: the backends of every
 * target sharing it, walwriter, autovacuum …) uses from `delayMs` from now, for `durationMs`. A backend
 * that exits in the window is not counted (an idle pool connection closing); one that starts is, whole.
 */
export async function postgresCpuInWindow(delayMs: number, durationMs: number): Promise<number> {
  await sleep(delayMs);
  const before = await postgresCpuByPid();
  await sleep(durationMs);
  let used = 0;
  for (const [pid, seconds] of await postgresCpuByPid()) {
    const earlier = before.get(pid);
    used += earlier === undefined ? seconds : Math.max(0, seconds - earlier);
  }
  return used;
}

/** Share of one core the process used over `ms` (1 = one core busy). */
export async function cpuShare(pid: number, ms: number): Promise<number> {
  const before = await cpuSeconds(pid);
  const started = performance.now();
  await sleep(ms);
  const after = await cpuSeconds(pid);
  return (after - before) / ((performance.now() - started) / 1000);
}

function clockTicks(): number {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
}

/** CPU seconds the process uses from `delayMs` from now, for `durationMs` (a load run's measured window). */
export async function cpuInWindow(pid: number, delayMs: number, durationMs: number): Promise<number> {
  await sleep(delayMs);
  const before = await cpuSeconds(pid);
  await sleep(durationMs);
  return (await cpuSeconds(pid)) - before;
}

/**
 * The process's resident memory by mapping, largest first (Linux smaps): `[heap]` is the C heap's main
 * arena, `[anon]` anonymous mappings grouped by size (glibc's other arenas are 64 MiB regions, V8's heap
 * pages are in others), files by name.
 */
export async function residentByMapping(pid: number, top = 8): Promise<string[]> {
  const smaps = await readFile(`/proc/${pid}/smaps`, "utf8");
  const byKind = new Map<string, number>();
  let kind = "";
  for (const line of smaps.split("\n")) {
    const header = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) {
      const size = (Number.parseInt(header[2] as string, 16) - Number.parseInt(header[1] as string, 16)) / 1024 / 1024;
      const name = header[3] as string;
      kind = name ? name.replace(/^.*\//, "") : `[anon ${size >= 64 ? "≥64" : size >= 1 ? "1-64" : "<1"} MiB]`;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) byKind.set(kind, (byKind.get(kind) ?? 0) + Number(rss[1]));
  }
  return [...byKind]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, kib]) => `${name} ${(kib / 1024).toFixed(1)} MiB`);
}
