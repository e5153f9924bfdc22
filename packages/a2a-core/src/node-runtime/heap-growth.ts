import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import { getHeapSpaceStatistics, setFlagsFromString } from "node:v8";

/** How much the old generation may grow over what is alive before V8 collects it again. */
export interface HeapGrowthPolicy {
  /** Room as a share of what is alive, %: what a large heap gets. */
  floorPercent: number;
  /** Room of at least this many bytes, or of what is alive when that is less (a small heap doubles). */
  minimumRoomBytes: number;
}

/**
 * `--heap-growing-percent` for an old generation with `liveBytes` alive: room of `floorPercent` of it,
 * but at least `minimumRoomBytes` or, when less is alive, as much as is alive. So a small heap is
 * collected at 2× (V8's own factor on a smaller host), a large one at 1 + floorPercent/100: a server
 * with little alive collects far less often, and the bound on a large heap stays where it was.
 */
export function growingPercentFor(liveBytes: number, policy: HeapGrowthPolicy): number {
  if (liveBytes <= 0) return 100;
  const room = Math.max((liveBytes * policy.floorPercent) / 100, Math.min(liveBytes, policy.minimumRoomBytes));
  return Math.min(100, Math.ceil((room / liveBytes) * 100));
}

/** What V8 sets the next full GC's limit on: every space but the young generation's. */
export function oldGenerationUsedBytes(): number {
  let used = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (!space.space_name.startsWith("new_")) used += space.space_used_size;
  }
  return used;
}

/** A GC entry's kind (`NODE_PERFORMANCE_GC_*`): node's typings leave `detail` off the base entry. */
function gcKind(entry: PerformanceEntry): number | undefined {
  return (entry as PerformanceEntry & { detail?: { kind?: number } | null }).detail?.kind;
}

export interface HeapGrowthHooks {
  /** Bytes alive in the old generation, read just after a full GC. */
  liveBytes?: () => number;
  setFlags?: (flags: string) => void;
}

/**
 * Sets `--heap-growing-percent` now and again after every full GC, from what is alive in the old
 * generation then (`growingPercentFor`). V8 reads the flag when it sets the next limit at the end of a
 * full GC, before this observer hears of it: the percent chosen from what one GC left alive sets the limit
 * at the end of the next one (a heap that grows fast gets one collection at the older percent). V8's flags are the
 * process's, so worker threads' heaps follow the calling thread's. Answers a function that stops
 * following (the last percent set stays in effect).
 */
export function followHeapGrowth(policy: HeapGrowthPolicy, hooks: HeapGrowthHooks = {}): () => void {
  const liveBytes = hooks.liveBytes ?? oldGenerationUsedBytes;
  const setFlags = hooks.setFlags ?? setFlagsFromString;
  let current: number | undefined;
  const update = () => {
    const percent = growingPercentFor(liveBytes(), policy);
    if (percent === current) return;
    current = percent;
    setFlags(`--heap-growing-percent=${percent}`);
  };
  update();
  const observer = new PerformanceObserver((list) => {
    const full = list.getEntries().some((entry) => gcKind(entry) === constants.NODE_PERFORMANCE_GC_MAJOR);
    if (full) update();
  });
  observer.observe({ entryTypes: ["gc"] });
  return () => observer.disconnect();
}
