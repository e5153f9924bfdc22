/** Small statistics for timings in milliseconds. */

export function median(values: readonly number[]): number {
  return quantile(values, 0.5);
}

/** Linear interpolation between closest ranks (the same as numpy's default). */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  const a = sorted[lower] as number;
  const b = sorted[upper] as number;
  return a + (b - a) * (position - lower);
}

/** Runs `fn` `warmups` times untimed, then `runs` times timed; returns the timings (ms). */
export async function time(fn: () => Promise<unknown>, runs: number, warmups: number): Promise<number[]> {
  for (let i = 0; i < warmups; i++) await fn();
  const timings: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    timings.push(performance.now() - started);
  }
  return timings;
}

export function ms(value: number): string {
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}

/**
 * Runs each of `fns` `warmups` times untimed, then `runs` rounds of one timed call of each in turn, so a
 * noisy spell on a shared machine weighs on all of them alike; returns the timings (ms) per function.
 */
export async function timeInterleaved(
  fns: readonly (() => Promise<unknown>)[],
  runs: number,
  warmups: number,
): Promise<number[][]> {
  for (let i = 0; i < warmups; i++) for (const fn of fns) await fn();
  const timings = fns.map(() => [] as number[]);
  for (let i = 0; i < runs; i++) {
    for (const [j, fn] of fns.entries()) {
      const started = performance.now();
      await fn();
      timings[j]?.push(performance.now() - started);
    }
  }
  return timings;
}
