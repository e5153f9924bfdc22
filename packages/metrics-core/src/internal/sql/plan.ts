import type { MetricsWindow } from "../../window/parse-metrics-window.js";
import { type DayRange, MS_PER_DAY, MS_PER_HOUR, splitByUnit, type TimeRange, utcDay } from "../utc-days.js";

/** Raw rows in [start, end), counted with `sign` (+1 adds them, -1 takes them away from an hour bucket). */
export interface RawRange extends TimeRange {
  readonly sign: 1 | -1;
}

/** [start, end) where a null side is unbounded. */
export interface OpenTimeRange {
  readonly start: Date | null;
  readonly end: Date | null;
}

/**
 * How one windowed count is assembled, coarse to fine: one contiguous run of daily rollups for the whole
 * UTC days, hourly rollups for the whole hours of the partial first/last day, and raw rows only for the
 * partial first/last hour. Every piece is bounded except the daily run, which may be open on either side.
 */
export interface EventMetricsPlan {
  readonly rollupDays: DayRange | null;
  /** Whole UTC hours [start, end), sorted, adjacent ranges merged. */
  readonly rollupHours: readonly TimeRange[];
  readonly raw: readonly RawRange[];
  /**
   * Every hour bucket the rollup pieces above count, as one range (null when they count none): the
   * not-yet-compacted hourly deltas of exactly these hours belong to the answer too. The days and hours
   * always touch (whole hours of the head day end where the whole days begin, and so on), so one range
   * covers them, and one scan of the delta table serves the whole window.
   */
  readonly deltaHours: OpenTimeRange | null;
}

/**
 * Plans the rollup/raw split for a window. A partial hour is counted either from its raw rows inside the
 * window, or, when those cover more than half the hour, as the hour's rollup minus the raw rows outside
 * the window: either way the result is exact, and at most half an hour of raw rows is read per edge, so
 * the cost follows days × keys, not the number of events.
 */
export function planEventMetricsWindow(window: MetricsWindow): EventMetricsPlan {
  const hours: TimeRange[] = [];
  const raw: RawRange[] = [];

  /** A piece inside one hour: raw rows, or the hour bucket minus the raw rows around the piece. */
  const partialHour = (piece: TimeRange) => {
    const hourStart = new Date(Math.floor(piece.start.getTime() / MS_PER_HOUR) * MS_PER_HOUR);
    const hourEnd = new Date(hourStart.getTime() + MS_PER_HOUR);
    if ((piece.end.getTime() - piece.start.getTime()) * 2 <= MS_PER_HOUR) {
      raw.push({ ...piece, sign: 1 });
      return;
    }
    hours.push({ start: hourStart, end: hourEnd });
    if (hourStart < piece.start) raw.push({ start: hourStart, end: piece.start, sign: -1 });
    if (piece.end < hourEnd) raw.push({ start: piece.end, end: hourEnd, sign: -1 });
  };

  /** A bounded piece of a partial day: whole hours from the hourly rollups, partial hours as above. */
  const partialDay = (piece: TimeRange) => {
    const split = splitByUnit(piece.start, piece.end, MS_PER_HOUR);
    if (split.head !== null) partialHour(split.head);
    if (split.whole !== null) hours.push({ start: split.whole.from as Date, end: split.whole.to as Date });
    if (split.tail !== null) partialHour(split.tail);
  };

  const days = splitByUnit(window.start, window.end, MS_PER_DAY);
  if (days.head !== null) partialDay(days.head);
  if (days.tail !== null) partialDay(days.tail);
  const rollupHours = mergeAdjacent(hours);

  return {
    rollupDays:
      days.whole === null
        ? null
        : {
            from: days.whole.from === null ? null : utcDay(days.whole.from),
            to: days.whole.to === null ? null : utcDay(days.whole.to),
          },
    rollupHours,
    raw: raw.sort((a, b) => a.start.getTime() - b.start.getTime()),
    deltaHours: spanOf(days.whole, rollupHours),
  };
}

/** The one range the whole days and the (sorted, merged) hour ranges make together. */
function spanOf(
  days: { readonly from: Date | null; readonly to: Date | null } | null,
  hours: readonly TimeRange[],
): OpenTimeRange | null {
  const ranges: OpenTimeRange[] = [...hours];
  if (days !== null) ranges.push({ start: days.from, end: days.to });
  if (ranges.length === 0) return null;
  const starts = ranges.map((r) => r.start);
  const ends = ranges.map((r) => r.end);
  return {
    start: starts.includes(null) ? null : new Date(Math.min(...starts.map((d) => (d as Date).getTime()))),
    end: ends.includes(null) ? null : new Date(Math.max(...ends.map((d) => (d as Date).getTime()))),
  };
}

function mergeAdjacent(ranges: TimeRange[]): TimeRange[] {
  const merged: TimeRange[] = [];
  for (const range of [...ranges].sort((a, b) => a.start.getTime() - b.start.getTime())) {
    const last = merged.at(-1);
    if (last !== undefined && last.end.getTime() === range.start.getTime()) {
      merged[merged.length - 1] = { start: last.start, end: range.end };
    } else {
      merged.push(range);
    }
  }
  return merged;
}
