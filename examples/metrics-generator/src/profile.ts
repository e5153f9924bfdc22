/**
 * What generated records look like: which event types, workflows and alerts occur how often, and when
 * during a day and a week robots are busy. Pure data and pure functions; the SQL that draws from them
 * lives in generate-metrics-data.ts.
 */

/** Records per telemetry event. Robots report far more telemetry (moves, battery) than they run workflows. */
export const EXECUTIONS_PER_EVENT = 0.04;
export const ALERTS_PER_EVENT = 0.005;

/** Telemetry event types and their shares: the simulated fleet's types, plus idle reporting. */
export const EVENT_TYPES: readonly (readonly [string, number])[] = [
  ["robot.moved", 30],
  ["battery.level", 22],
  ["shelf.scanned", 12],
  ["robot.picked", 10],
  ["robot.placed", 8],
  ["inventory.reconciled", 4],
  ["floor.scanned", 3],
  ["floor.cleaned", 3],
  ["robot.worked", 3],
  ["robot.reported", 3],
  ["area.cordoned", 2],
];

/** Alert types: share, severity, message. */
export const ALERT_TYPES: readonly (readonly [string, number, string, string])[] = [
  ["obstacle_detected", 55, "warning", "rerouted around an obstacle"],
  ["battery_low", 20, "warning", "battery below 20 %, returning to dock"],
  ["item_not_found", 12, "info", "item not at its planned location"],
  ["path_blocked", 8, "warning", "aisle blocked, waiting"],
  ["emergency_stop", 5, "critical", "emergency stop pressed"],
];

/** Execution outcomes: a failed or canceled run stops part-way through its nodes. */
export const EXECUTION_STATUSES: readonly (readonly [string, number])[] = [
  ["completed", 94],
  ["failed", 4],
  ["canceled", 2],
];

/**
 * Lower bucket edges for `width_bucket(random(), edges)`: bucket i (1-based) is drawn with probability
 * share_i / sum. The first edge is 0.
 */
export function bucketEdges(shares: readonly number[]): number[] {
  const total = shares.reduce((a, b) => a + b, 0);
  if (!(total > 0) || shares.some((s) => !(s >= 0))) throw new RangeError("shares must be non-negative, sum > 0");
  const edges: number[] = [];
  let running = 0;
  for (const share of shares) {
    edges.push(running / total);
    running += share;
  }
  return edges;
}

// Relative activity per UTC hour: quiet nights, a morning restock peak, a midday peak, a slow evening.
const HOURLY = [
  0.15, 0.12, 0.1, 0.1, 0.12, 0.25, 0.5, 0.85, 1.0, 1.0, 0.95, 1.05, 1.2, 1.15, 1.0, 0.95, 1.0, 1.05, 0.95, 0.85, 0.7,
  0.5, 0.3, 0.2,
];
// Sunday … Saturday: a grocery's weekend.
const WEEKDAY = [0.7, 0.95, 0.95, 1.0, 1.0, 1.1, 1.25];
const HOUR_MS = 3_600_000;

/**
 * The activity over a time span as a piecewise-constant density, one piece per UTC hour (cut at the
 * span's ends): `offsets[i]` is where piece i starts (seconds from `start`; the last entry is the span),
 * `cumulative[i]` the share of all activity before it (0 … 1). A uniform u in [0, 1) maps to a time by
 * finding its piece (`width_bucket`) and interpolating inside it: an exact inverse CDF, monotone in u, so
 * rows numbered in order get times in order.
 */
export interface Timeline {
  start: Date;
  end: Date;
  spanSeconds: number;
  offsets: number[];
  cumulative: number[];
}

export function buildTimeline(start: Date, end: Date, seed: number): Timeline {
  const startMs = start.getTime();
  const endMs = end.getTime();
  if (!(endMs > startMs)) throw new RangeError("timeline end must be after its start");
  const offsets: number[] = [];
  const weights: number[] = [];
  for (let at = startMs; at < endMs; ) {
    const next = Math.min((Math.floor(at / HOUR_MS) + 1) * HOUR_MS, endMs);
    const date = new Date(at);
    const dayNumber = Math.floor(at / 86_400_000);
    // Business grows ~20 % over the span; each day is a little busier or quieter than its weekday.
    const trend = 0.9 + 0.2 * ((at - startMs) / (endMs - startMs));
    const dayNoise = 0.85 + 0.3 * unitHash(seed, dayNumber);
    const density = (HOURLY[date.getUTCHours()] as number) * (WEEKDAY[date.getUTCDay()] as number) * trend * dayNoise;
    offsets.push((at - startMs) / 1000);
    weights.push(density * (next - at));
    at = next;
  }
  offsets.push((endMs - startMs) / 1000);
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative = [0];
  let running = 0;
  for (const weight of weights.slice(0, -1)) {
    running += weight;
    cumulative.push(running / total);
  }
  cumulative.push(1);
  return { start, end, spanSeconds: (endMs - startMs) / 1000, offsets, cumulative };
}

/** The time (seconds from the timeline's start) at quantile u, as the SQL computes it: for tests. */
export function timeAt(timeline: Timeline, u: number): number {
  const { offsets, cumulative } = timeline;
  let i = 0;
  while (i + 1 < cumulative.length - 1 && (cumulative[i + 1] as number) <= u) i++;
  const c0 = cumulative[i] as number;
  const c1 = cumulative[i + 1] as number;
  const o0 = offsets[i] as number;
  const o1 = offsets[i + 1] as number;
  return o0 + ((u - c0) / (c1 - c0)) * (o1 - o0);
}

/** A deterministic number in [0, 1) from integers (xmur3-style mixing). */
export function unitHash(...parts: number[]): number {
  let h = 1779033703;
  for (const part of parts) {
    h = Math.imul(h ^ (part | 0), 3432918353);
    h = (h << 13) | (h >>> 19);
    h = Math.imul(h ^ Math.floor(part / 4294967296), 2654435761);
  }
  h = Math.imul(h ^ (h >>> 16), 2246822507);
  h = Math.imul(h ^ (h >>> 13), 3266489909);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

/** A `setseed()` argument (in [-1, 1]) for one batch, so a given seed always yields the same records. */
export function batchSeed(seed: number, table: number, batch: number): number {
  return unitHash(seed, table, batch) * 2 - 1;
}
