/** The bench's printed results: one table (ours, each SDK variant, ratios) and the targets' verdicts. */
import { ms } from "../metrics/stats.ts";
import type { StreamScenario } from "./streams.ts";
import type { TargetId } from "./targets.ts";

export interface LoadResult {
  ttfe: { median: number; p95: number; n: number };
  tasks: { perSecond: number; completed: number; failures: number; medianMs: number; cpuMsPerTask: number };
  getTask: { perSecond: number; p50: number; p99: number; errors: number; cpuUsPerRequest: number };
}

export interface Result {
  target: TargetId;
  label: string;
  store: string;
  load: LoadResult;
  streams: Partial<Record<StreamScenario["kind"], StreamScenario>>;
}

type Better = "higher" | "lower";
type Row = [name: string, get: (r: Result) => number | undefined, format: (n: number) => string, better: Better];

const whole = (n: number) => n.toFixed(0);
const tenth = (n: number) => n.toFixed(1);

function streamRows(counts: number[], subscribeCounts: number[]): Row[] {
  const rows: Row[] = [];
  counts.forEach((count, i) => {
    const at = count.toLocaleString("en");
    rows.push([
      `RSS KiB per idle stream+task @ ${at} (after GC)`,
      (r) => r.streams.task?.points[i]?.perStream.rssAfterGcKiB,
      tenth,
      "lower",
    ]);
    rows.push([
      `RSS KiB per idle stream+task @ ${at} (settled, no GC)`,
      (r) => r.streams.task?.points[i]?.perStream.rssKiB,
      tenth,
      "lower",
    ]);
    rows.push([
      `heap KiB per idle stream+task @ ${at}`,
      (r) => r.streams.task?.points[i]?.perStream.heapKiB,
      tenth,
      "lower",
    ]);
  });
  subscribeCounts.forEach((count, i) => {
    const at = count.toLocaleString("en");
    rows.push([
      `RSS KiB per idle subscription @ ${at} (after GC)`,
      (r) => r.streams.subscribe?.points[i]?.perStream.rssAfterGcKiB,
      tenth,
      "lower",
    ]);
    rows.push([
      `heap KiB per idle subscription @ ${at}`,
      (r) => r.streams.subscribe?.points[i]?.perStream.heapKiB,
      tenth,
      "lower",
    ]);
  });
  rows.push(["streams+tasks opened per second", (r) => r.streams.task?.openPerSecond, whole, "higher"]);
  const max = counts.at(-1);
  if (max !== undefined) {
    rows.push([
      `idle CPU @ ${max.toLocaleString("en")} streams+tasks (% of a core)`,
      (r) => r.streams.task && r.streams.task.idleCpu * 100,
      tenth,
      "lower",
    ]);
  }
  return rows;
}

export function resultTable(results: Result[], counts: number[], subscribeCounts: number[]): string {
  const ours = results.find((r) => r.target === "ours");
  const others = results.filter((r) => r.target !== "ours");
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
    ...streamRows(counts, subscribeCounts),
  ];
  const header = ["figure", ...results.map((r) => r.label), ...others.map((o) => `ours ÷ ${o.label}`), "better"];
  const lines = [`| ${header.join(" | ")} |`, `|${header.map((_, i) => (i === 0 ? "---" : "---:")).join("|")}|`];
  for (const [name, get, format, better] of rows) {
    const cells = results.map((r) => {
      const v = get(r);
      return v === undefined || Number.isNaN(v) ? "–" : format(v);
    });
    const ratios = others.map((o) => {
      const a = ours ? get(ours) : undefined;
      const b = get(o);
      return a === undefined || b === undefined || Number.isNaN(a) || Number.isNaN(b) || b === 0
        ? "–"
        : `${(a / b).toFixed(2)}×`;
    });
    lines.push(`| ${[name, ...cells, ...ratios, better].join(" | ")} |`);
  }
  return lines.join("\n");
}

/** The two targets, judged on ours against the SDK servers of this run. */
export function targetVerdicts(results: Result[]): string[] {
  const ours = results.find((r) => r.target === "ours");
  if (!ours) return ["- (ours was not run)"];
  const lines: string[] = [];
  for (const kind of ["task", "subscribe"] as const) {
    const scenario = ours.streams[kind];
    const point = scenario?.points.find((p) => p.streams >= 5_000);
    if (!scenario) continue;
    const what = kind === "task" ? "streams, each on a task of its own" : "subscription streams";
    if (!point) {
      lines.push(`- ≥ 5,000 concurrent ${what}: not measured (largest: ${scenario.points.at(-1)?.streams ?? 0})`);
      continue;
    }
    const held = scenario.failedToOpen === 0 && scenario.dropped === 0;
    const small = point.perStream.rssAfterGcKiB <= 20;
    lines.push(
      `- ≥ 5,000 concurrent ${what} at ≤ 20 KiB each: ${held && small ? "MET" : "NOT MET"} — ` +
        `${point.streams.toLocaleString("en")} held (${scenario.failedToOpen} failed to open, ${scenario.dropped} dropped), ` +
        `${point.perStream.rssAfterGcKiB.toFixed(1)} KiB RSS each after GC (${point.perStream.rssKiB.toFixed(1)} settled, ` +
        `${point.perStream.heapKiB.toFixed(1)} heap)`,
    );
  }
  for (const sdk of results.filter((r) => r.target.startsWith("sdk"))) {
    const ratio = ours.load.getTask.perSecond / sdk.load.getTask.perSecond;
    if (Number.isNaN(ratio)) continue;
    lines.push(
      `- GetTask ≥ 2× the ${sdk.label} server (${sdk.store}): ${ratio >= 2 ? "MET" : "NOT MET"} — ` +
        `${ratio.toFixed(2)}× (${ours.load.getTask.perSecond.toFixed(0)} vs ${sdk.load.getTask.perSecond.toFixed(0)} req/s)`,
    );
  }
  return lines;
}
