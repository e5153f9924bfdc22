import type { MetricsWindow } from "../window/parse-metrics-window.js";

export const MS_PER_DAY = 86_400_000;
export const MS_PER_HOUR = 3_600_000;

/** Midnight UTC at the start of the day that contains `date`. */
export function startOfUtcDay(date: Date): Date {
  return new Date(Math.floor(date.getTime() / MS_PER_DAY) * MS_PER_DAY);
}

export function addUtcDays(date: Date, days: number): Date {
  return new Date(date.getTime() + days * MS_PER_DAY);
}

export function isUtcMidnight(date: Date): boolean {
  return date.getTime() % MS_PER_DAY === 0;
}

/**
 * The UTC calendar day of `date` as `YYYY-MM-DD`, the same string PostgreSQL's
 * `to_char((t AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD')` gives (years past 9999 get more digits, as there).
 */
export function utcDay(date: Date): string {
  const time = date.getTime();
  if (!Number.isFinite(time)) throw new RangeError("utcDay: invalid Date");
  const year = date.getUTCFullYear();
  if (year < 1) throw new RangeError("utcDay: years before 0001 are not supported");
  const month = String(date.getUTCMonth() + 1).padStart(2, "0");
  const day = String(date.getUTCDate()).padStart(2, "0");
  return `${String(year).padStart(4, "0")}-${month}-${day}`;
}

/**
 * A timestamp literal PostgreSQL parses for every year `utcDay` supports (`toISOString` switches to the
 * `+010000-` form past 9999, which PostgreSQL rejects).
 */
export function utcTimestampLiteral(date: Date): string {
  const iso = new Date(date.getTime() - startOfUtcDay(date).getTime()).toISOString(); // 1970-01-01Thh:mm:ss.sssZ
  return `${utcDay(date)}${iso.slice(10)}`;
}

/** [start, end) with both ends known. */
export interface TimeRange {
  readonly start: Date;
  readonly end: Date;
}

/** Whole UTC days [from, to) as `YYYY-MM-DD`; a null side is unbounded. */
export interface DayRange {
  readonly from: string | null;
  readonly to: string | null;
}

export interface UtcWindowSplit {
  /** The partial first day: [start, next midnight), or the whole window when it lies inside one day. */
  readonly head: TimeRange | null;
  /** The whole UTC days inside the window, or null when there are none. */
  readonly days: DayRange | null;
  /** The partial last day: [midnight, end), when end is not at midnight and falls on a later day than head. */
  readonly tail: TimeRange | null;
}

/** Where a window's whole units (days, hours) and its partial first and last unit lie. */
export interface UnitSplit {
  /** The partial first unit: [start, next unit boundary), or the whole window when it lies inside one unit. */
  readonly head: TimeRange | null;
  /** Whole units [from, to) as boundaries; a null side is unbounded; null when there are none. */
  readonly whole: { readonly from: Date | null; readonly to: Date | null } | null;
  /** The partial last unit: [unit boundary, end), when end is not on a boundary and not inside head. */
  readonly tail: TimeRange | null;
}

function floorTo(date: Date, unitMs: number): Date {
  return new Date(Math.floor(date.getTime() / unitMs) * unitMs);
}

/**
 * Splits [start, end) into a partial head, whole units and a partial tail, for any unit that divides the
 * day (UTC has no leap seconds in JS time, so every UTC day and hour has the same length).
 */
export function splitByUnit(start: Date | null, end: Date | null, unitMs: number): UnitSplit {
  let head: TimeRange | null = null;
  let tail: TimeRange | null = null;
  let firstWhole: Date | null = null;
  let afterLastWhole: Date | null = null;

  if (start !== null) {
    if (start.getTime() % unitMs === 0) {
      firstWhole = start;
    } else {
      const next = new Date(floorTo(start, unitMs).getTime() + unitMs);
      head = { start, end: end !== null && end < next ? end : next };
      firstWhole = next;
    }
  }
  if (end !== null) {
    afterLastWhole = floorTo(end, unitMs);
    if (end.getTime() % unitMs !== 0 && !(head !== null && head.end.getTime() === end.getTime())) {
      tail = { start: afterLastWhole, end };
    }
  }
  const hasWhole = firstWhole === null || afterLastWhole === null || firstWhole < afterLastWhole;
  return { head, whole: hasWhole ? { from: firstWhole, to: afterLastWhole } : null, tail };
}

/**
 * Splits a window into the partial head, the whole UTC days and the partial tail. Only the head and tail
 * need finer data (hourly rollups, raw rows); whole days come from daily rollups. An open side makes the
 * whole-day range open.
 */
export function splitUtcWindow(window: MetricsWindow): UtcWindowSplit {
  const { head, whole, tail } = splitByUnit(window.start, window.end, MS_PER_DAY);
  const days: DayRange | null =
    whole === null
      ? null
      : { from: whole.from === null ? null : utcDay(whole.from), to: whole.to === null ? null : utcDay(whole.to) };
  return { head, days, tail };
}
