/**
 * The figures docs/performance.md records, read from recorded.json beside this file, and the comparison
 * of a run with them: a window whose rollup median is more than `slowerThan` times the recorded one is
 * flagged, so a planner or data change that slows a window down shows in the bench's output and exit code.
 */
import { readFileSync } from "node:fs";

export interface RecordedWindow {
  median: number;
  p95: number;
  raw: number;
}

interface RecordedFile {
  slowerThan: number;
  sizes: Record<string, { events: number; measured: string; windows: Record<string, RecordedWindow> }>;
}

export interface WindowComparison {
  window: string;
  median: number;
  recorded: RecordedWindow | undefined;
  /** median ÷ recorded median (undefined: nothing recorded for this window). */
  ratio: number | undefined;
  flagged: boolean;
}

export interface Comparison {
  /** The data size compared with ("1M", "10M"), or undefined when no recorded table has this many events. */
  size: string | undefined;
  slowerThan: number;
  windows: WindowComparison[];
}

export function readRecorded(file = new URL("./recorded.json", import.meta.url)): RecordedFile {
  return JSON.parse(readFileSync(file, "utf8")) as RecordedFile;
}

export function compareWithRecorded(
  recorded: RecordedFile,
  events: number,
  measured: readonly { window: string; median: number }[],
): Comparison {
  const size = Object.entries(recorded.sizes).find(([, table]) => table.events === events);
  const windows = measured.map(({ window, median }) => {
    const record = size?.[1].windows[window];
    const ratio = record ? median / record.median : undefined;
    return { window, median, recorded: record, ratio, flagged: ratio !== undefined && ratio > recorded.slowerThan };
  });
  return { size: size?.[0], slowerThan: recorded.slowerThan, windows };
}
