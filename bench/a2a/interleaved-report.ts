/**
 * The verdicts of `pnpm bench:a2a:ab` (interleaved.ts): for each figure, each target's median of the
 * rounds with their spread (and, for the rate phases, the pooled figure: everything done over the whole
 * time); against the baseline (the first target), the change in each round (the same round's slices, next
 * to each other in time), its median and spread, and a reading: "within the spread" when the rounds
 * disagree on the sign, else better or worse in every round.
 */
import { median } from "../metrics/stats.ts";
import type { FigureSpec, PhaseId, Settings, SliceResult } from "./interleaved-phases.ts";
import type { TargetId } from "./targets.ts";

/** The cost the OpenTelemetry target allows: at most 5 % below the baseline, ours without an SDK. */
export const COST_BOUND = 0.05;
const TELEMETRY_TARGETS: readonly TargetId[] = ["ours-otel-metrics", "ours-otel-sampled", "ours-otel"];

export type Reading = "within the spread" | "better in every round" | "worse in every round" | "one round: no spread";

export interface Comparison {
  phase: PhaseId;
  figure: string;
  name: string;
  target: TargetId;
  label: string;
  /** The figure in each counted round, in round order. */
  rounds: number[];
  median: number;
  pooled?: number;
  failures: number;
  /** Against the baseline; undefined for the baseline itself. */
  versus?: {
    roundChanges: number[];
    medianChange: number;
    pooledChange?: number;
    reading: Reading;
    /** Only for an OpenTelemetry target against ours, on a rate: the target is about those. */
    status?: "MET" | "NOT MET";
  };
}

export function reading(changes: readonly number[], better: FigureSpec["better"]): Reading {
  if (changes.length < 2) return "one round: no spread";
  const up = changes.every((c) => c > 0);
  const down = changes.every((c) => c < 0);
  if (!up && !down) return "within the spread";
  return up === (better === "higher") ? "better in every round" : "worse in every round";
}

export function compare(
  phase: PhaseId,
  figures: readonly FigureSpec[],
  targets: readonly { id: TargetId; label: string }[],
  slices: ReadonlyMap<TargetId, SliceResult[]>,
  settings: Settings,
): Comparison[] {
  const [baseline] = targets as [{ id: TargetId; label: string }];
  const own = (id: TargetId) => slices.get(id) ?? [];
  return figures.flatMap((figure) => {
    const values = (id: TargetId) => own(id).map((s) => s.values[figure.key] ?? Number.NaN);
    const pooled = (id: TargetId) => figure.pooled?.(own(id), settings);
    const base = values(baseline.id);
    // A figure some targets do not have (PostgreSQL's CPU of a target without PostgreSQL): their rows are
    // left out, and the whole figure when the baseline has none.
    const measured = (id: TargetId) => values(id).some((value) => !Number.isNaN(value));
    if (!measured(baseline.id)) return [];
    return targets
      .filter(({ id }) => measured(id))
      .map(({ id, label }) => {
        const rounds = values(id);
        const mine = pooled(id);
        const comparison: Comparison = {
          phase,
          figure: figure.key,
          name: figure.name,
          target: id,
          label,
          rounds,
          median: median(rounds),
          ...(mine === undefined ? {} : { pooled: mine }),
          failures: own(id).reduce((total, s) => total + s.failures, 0),
        };
        if (id === baseline.id) return comparison;
        const roundChanges = rounds.map((v, i) => v / (base[i] as number) - 1);
        const basePooled = pooled(baseline.id);
        const pooledChange = mine === undefined || basePooled === undefined ? undefined : mine / basePooled - 1;
        comparison.versus = {
          roundChanges,
          medianChange: median(roundChanges),
          ...(pooledChange === undefined ? {} : { pooledChange }),
          reading: reading(roundChanges, figure.better),
          ...(figure.telemetryBound &&
          pooledChange !== undefined &&
          baseline.id === "ours" &&
          TELEMETRY_TARGETS.includes(id)
            ? { status: -pooledChange <= COST_BOUND ? ("MET" as const) : ("NOT MET" as const) }
            : {}),
        };
        return comparison;
      });
  });
}

export const percent = (x: number) => `${x >= 0 ? "+" : "−"}${Math.abs(x * 100).toFixed(1)} %`;
const range = (xs: readonly number[], format: (n: number) => string) =>
  xs.length > 1 ? ` (${format(Math.min(...xs))} to ${format(Math.max(...xs))})` : "";

export function table(title: string, figures: readonly FigureSpec[], comparisons: readonly Comparison[]): string[] {
  const [first] = comparisons as [Comparison];
  const baseline = comparisons.find((c) => !c.versus && c.figure === first.figure) ?? first;
  const lines = [
    `${title}:`,
    "",
    `| figure | target | median of rounds (spread) | pooled | vs ${baseline.label}: median of rounds (spread) | pooled change | reading | failures |`,
    "|---|---|---:|---:|---|---:|---|---:|",
  ];
  for (const c of comparisons) {
    const figure = figures.find((f) => f.key === c.figure) as FigureSpec;
    const v = c.versus;
    lines.push(
      `| ${c.name} | ${c.label} | ${figure.format(c.median)}${range(c.rounds, figure.format)} | ` +
        `${c.pooled === undefined ? "–" : figure.format(c.pooled)} | ` +
        `${v ? `${percent(v.medianChange)}${range(v.roundChanges, percent)}` : "baseline"} | ` +
        `${v?.pooledChange === undefined ? "–" : percent(v.pooledChange)} | ${v ? v.reading : "–"} | ${c.failures} |`,
    );
  }
  return lines;
}

export function verdictLines(comparisons: readonly Comparison[], rounds: number): string[] {
  return comparisons.flatMap((c) => {
    const baseline = comparisons.find((b) => b.phase === c.phase && b.figure === c.figure && !b.versus);
    if (!c.versus?.status || c.versus.pooledChange === undefined || !baseline) return [];
    const cost = -c.versus.pooledChange;
    return [
      `- ${c.label}: ${c.name} at most ${COST_BOUND * 100} % below ${baseline.label}: ${c.versus.status} — ` +
        `${cost >= 0 ? `${(cost * 100).toFixed(1)} % below` : `${(-cost * 100).toFixed(1)} % above`} ` +
        `(${c.pooled?.toFixed(0)} vs ${baseline.pooled?.toFixed(0)}, pooled over ${rounds} alternating slices each; ` +
        `${c.versus.reading})`,
    ];
  });
}
