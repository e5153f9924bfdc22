import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { MetricsWindow } from "../../window/parse-metrics-window.js";
import { MS_PER_DAY, MS_PER_HOUR, utcDay } from "../utc-days.js";
import { type EventMetricsPlan, planEventMetricsWindow } from "./plan.js";

const window = (start: string | null, end: string | null): MetricsWindow => ({
  start: start === null ? null : new Date(start),
  end: end === null ? null : new Date(end),
});
/** The plan with ISO strings, easy to compare. */
function described(plan: EventMetricsPlan) {
  return {
    days: plan.rollupDays,
    hours: plan.rollupHours.map((h) => [h.start.toISOString(), h.end.toISOString()]),
    raw: plan.raw.map((r) => [r.sign, r.start.toISOString(), r.end.toISOString()]),
  };
}

describe("planEventMetricsWindow", () => {
  it("reads an aligned window from daily rollups only", () => {
    expect(described(planEventMetricsWindow(window("2026-01-01", "2026-03-31")))).toEqual({
      days: { from: "2026-01-01", to: "2026-03-31" },
      hours: [],
      raw: [],
    });
  });

  it("reads no raw rows at all for an open window", () => {
    expect(described(planEventMetricsWindow(window(null, null)))).toEqual({
      days: { from: null, to: null },
      hours: [],
      raw: [],
    });
  });

  it("reads hour-aligned edges from hourly rollups", () => {
    expect(described(planEventMetricsWindow(window("2026-01-01T18:00:00Z", "2026-01-05T06:00:00Z")))).toEqual({
      days: { from: "2026-01-02", to: "2026-01-05" },
      hours: [
        ["2026-01-01T18:00:00.000Z", "2026-01-02T00:00:00.000Z"],
        ["2026-01-05T00:00:00.000Z", "2026-01-05T06:00:00.000Z"],
      ],
      raw: [],
    });
  });

  it("adds raw rows for a short partial hour", () => {
    expect(described(planEventMetricsWindow(window("2026-01-01T18:45:00Z", "2026-01-05T06:10:00Z")))).toEqual({
      days: { from: "2026-01-02", to: "2026-01-05" },
      hours: [
        ["2026-01-01T19:00:00.000Z", "2026-01-02T00:00:00.000Z"],
        ["2026-01-05T00:00:00.000Z", "2026-01-05T06:00:00.000Z"],
      ],
      raw: [
        [1, "2026-01-01T18:45:00.000Z", "2026-01-01T19:00:00.000Z"],
        [1, "2026-01-05T06:00:00.000Z", "2026-01-05T06:10:00.000Z"],
      ],
    });
  });

  it("takes a long partial hour as the hour's rollup minus the raw rows outside the window", () => {
    expect(described(planEventMetricsWindow(window("2026-01-01T18:05:00Z", "2026-01-05T06:50:00Z")))).toEqual({
      days: { from: "2026-01-02", to: "2026-01-05" },
      hours: [
        ["2026-01-01T18:00:00.000Z", "2026-01-02T00:00:00.000Z"],
        ["2026-01-05T00:00:00.000Z", "2026-01-05T07:00:00.000Z"],
      ],
      raw: [
        [-1, "2026-01-01T18:00:00.000Z", "2026-01-01T18:05:00.000Z"],
        [-1, "2026-01-05T06:50:00.000Z", "2026-01-05T07:00:00.000Z"],
      ],
    });
  });

  it("handles a window inside one hour both ways", () => {
    expect(described(planEventMetricsWindow(window("2026-01-01T10:10:00Z", "2026-01-01T10:20:00Z")))).toEqual({
      days: null,
      hours: [],
      raw: [[1, "2026-01-01T10:10:00.000Z", "2026-01-01T10:20:00.000Z"]],
    });
    expect(described(planEventMetricsWindow(window("2026-01-01T10:01:00Z", "2026-01-01T10:59:00Z")))).toEqual({
      days: null,
      hours: [["2026-01-01T10:00:00.000Z", "2026-01-01T11:00:00.000Z"]],
      raw: [
        [-1, "2026-01-01T10:00:00.000Z", "2026-01-01T10:01:00.000Z"],
        [-1, "2026-01-01T10:59:00.000Z", "2026-01-01T11:00:00.000Z"],
      ],
    });
  });

  it("spans two partial days without whole days between them", () => {
    expect(described(planEventMetricsWindow(window("2026-01-01T22:00:00Z", "2026-01-02T02:00:00Z")))).toEqual({
      days: null,
      hours: [["2026-01-01T22:00:00.000Z", "2026-01-02T02:00:00.000Z"]],
      raw: [],
    });
  });

  it("reaches past the last representable day with an open end", () => {
    expect(described(planEventMetricsWindow(window("9999-12-31T23:00:00Z", null)))).toEqual({
      days: { from: "10000-01-01", to: null },
      hours: [["9999-12-31T23:00:00.000Z", "+010000-01-01T00:00:00.000Z"]],
      raw: [],
    });
  });

  it("never reads more than half an hour of raw rows per edge, nor more than a day of hours", () => {
    fc.assert(
      fc.property(arbitraryWindow, (w) => {
        const plan = planEventMetricsWindow(w);
        const span = (ranges: readonly { start: Date; end: Date }[]) =>
          ranges.reduce((sum, r) => sum + (r.end.getTime() - r.start.getTime()), 0);
        expect(span(plan.raw)).toBeLessThanOrEqual(MS_PER_HOUR);
        expect(span(plan.rollupHours)).toBeLessThanOrEqual(2 * MS_PER_DAY);
        for (const r of [...plan.raw, ...plan.rollupHours]) expect(r.end > r.start).toBe(true);
        for (const h of plan.rollupHours) {
          expect(h.start.getTime() % MS_PER_HOUR).toBe(0);
          expect(h.end.getTime() % MS_PER_HOUR).toBe(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("spans the deltas over exactly the hour buckets the rollup parts count", () => {
    fc.assert(
      fc.property(fc.array(instant, { maxLength: 40 }), arbitraryWindow, (records, w) => {
        const plan = planEventMetricsWindow(w);
        const span = plan.deltaHours;
        for (const t of records) {
          const hour = Math.floor(t / MS_PER_HOUR) * MS_PER_HOUR;
          const day = utcDay(new Date(t));
          const days = plan.rollupDays;
          const byRollups =
            (days !== null && (days.from === null || day >= days.from) && (days.to === null || day < days.to)) ||
            plan.rollupHours.some((h) => hour >= h.start.getTime() && hour < h.end.getTime());
          const inSpan =
            span !== null &&
            (span.start === null || hour >= span.start.getTime()) &&
            (span.end === null || hour < span.end.getTime());
          expect({ t, inSpan }).toEqual({ t, inSpan: byRollups });
        }
        if (span?.start) expect(span.start.getTime() % MS_PER_HOUR).toBe(0);
        if (span?.end) expect(span.end.getTime() % MS_PER_HOUR).toBe(0);
      }),
      { numRuns: 1000 },
    );
  });

  // The plan is exact by construction: evaluate it in JS over random instants (as the rollups would count
  // them) and compare with a direct count. This covers every edge combination far faster than a database.
  it("counts exactly what a direct count over the window gives", () => {
    fc.assert(
      fc.property(fc.array(instant, { maxLength: 60 }), arbitraryWindow, (records, w) => {
        const inWindow = (t: number) =>
          (w.start === null || t >= w.start.getTime()) && (w.end === null || t < w.end.getTime());
        const expected = records.filter(inWindow).length;

        const plan = planEventMetricsWindow(w);
        let counted = 0;
        for (const t of records) {
          const day = utcDay(new Date(t));
          const days = plan.rollupDays;
          if (days !== null && (days.from === null || day >= days.from) && (days.to === null || day < days.to)) {
            counted += 1;
          }
          const hour = Math.floor(t / MS_PER_HOUR) * MS_PER_HOUR;
          for (const h of plan.rollupHours) if (hour >= h.start.getTime() && hour < h.end.getTime()) counted += 1;
          for (const r of plan.raw) if (t >= r.start.getTime() && t < r.end.getTime()) counted += r.sign;
        }
        expect(counted).toBe(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

const BASE = Date.UTC(2026, 0, 1);
// Instants over five days, biased towards day and hour boundaries and the milliseconds around them.
const instant = fc.oneof(
  fc.integer({ min: 0, max: 5 }).map((d) => BASE + d * MS_PER_DAY),
  fc.integer({ min: 0, max: 5 * 24 }).map((h) => BASE + h * MS_PER_HOUR),
  fc.integer({ min: 0, max: 5 * MS_PER_DAY }).map((ms) => BASE + ms),
  fc
    .tuple(fc.integer({ min: 0, max: 5 * 24 }), fc.integer({ min: -3, max: 3 }))
    .map(([h, ms]) => BASE + h * MS_PER_HOUR + ms),
);
const arbitraryWindow = fc
  .tuple(fc.option(instant, { nil: null }), fc.option(instant, { nil: null }))
  .filter(([a, b]) => a === null || b === null || a !== b)
  .map(([a, b]): MetricsWindow => {
    const [start, end] = a !== null && b !== null && a > b ? [b, a] : [a, b];
    return { start: start === null ? null : new Date(start), end: end === null ? null : new Date(end) };
  });
