import { getHeapStatistics } from "node:v8";
import { followHeapGrowth, type HeapGrowthPolicy } from "./heap-growth.js";

/**
 * V8's heap sizing for a long-running server unless the operator chose their own (the repository's
 * docs/design/memory.md, "Node's heap settings"). With an old-space limit of 2 GiB or more (Node's default on a host with 8 GB or more) V8
 * lets the young generation grow to 2 × 64 MiB and collects the old one only when it has grown to ~4×
 * what the last full GC left alive (heap-controller.cc, MaxGrowingFactor: 4.0 from 2 GiB, 1.3–2.0 below):
 * an RSS several times the live heap. These two bring it near what is alive without a hard limit.
 */
export const HEAP_DEFAULTS = {
  /** The young generation's semi-space, MiB: 3 × 16 MiB at most instead of 3 × 64. */
  maxSemiSpaceMiB: 16,
  /** The old generation is collected when it has grown by half over what the last full GC left alive … */
  heapGrowingPercent: 50,
  /** … or by 48 MiB, or by as much as was alive when that is less (heap-growth.ts). */
  minimumRoomMiB: 48,
} as const;

const GROWTH_POLICY: HeapGrowthPolicy = {
  floorPercent: HEAP_DEFAULTS.heapGrowingPercent,
  minimumRoomBytes: HEAP_DEFAULTS.minimumRoomMiB * 1024 * 1024,
};

/** Sized when the process starts: only a start with it on the command line applies it. */
export const SEMI_SPACE_FLAG = `--max-semi-space-size=${HEAP_DEFAULTS.maxSemiSpaceMiB}`;
/**
 * The growth the server sets itself at run time, after each full GC (`followHeapGrowth`), as the log says
 * it: not a flag to pass on, since the percent moves with what is alive.
 */
export const HEAP_GROWTH =
  `--heap-growing-percent from what is alive: 100 up to ${HEAP_DEFAULTS.minimumRoomMiB} MiB, ` +
  `then ${HEAP_DEFAULTS.minimumRoomMiB} MiB of room, ${HEAP_DEFAULTS.heapGrowingPercent} from ` +
  `${(HEAP_DEFAULTS.minimumRoomMiB * 100) / HEAP_DEFAULTS.heapGrowingPercent} MiB`;

/** Below this old-space limit V8's own growth factor is already ≤ 2 and its young generation small. */
const LARGE_HEAP_LIMIT_BYTES = 2048 * 1024 * 1024;

/** Any flag that sizes V8's heap or paces its collections (Node accepts `_` for `-` in V8 flags). */
const HEAP_FLAG =
  /^--(?:(?:max|min|initial)[-_](?:old[-_]space|semi[-_]space|heap|young[-_]generation)[-_]size(?:[-_]percentage)?|heap[-_]growing[-_]percent)(?:=|$)/;

export type HeapSettingsSource =
  /** The server's defaults are in effect. */
  | "server defaults"
  /** Heap flags of the operator's, on the command line or in NODE_OPTIONS: left as they are. */
  | "operator"
  /** V8's own sizing is already modest (a host with less memory, or a container's memory limit). */
  | "host";

export interface HeapDecision {
  source: HeapSettingsSource;
  /** The heap flags in effect that someone passed (the server's or the operator's). */
  flags: string[];
  /** Set when the server paces the old generation's collections itself (`HEAP_GROWTH`). */
  growth?: string;
  /** Start again with this flag first on the command line, before anything else is done. */
  restartWith?: string;
}

/** What to do about the heap, from the process's flags and V8's current limit; pure, for tests. */
export function decideHeapSettings(input: {
  execArgv: readonly string[];
  nodeOptions: string | undefined;
  heapSizeLimitBytes: number;
  canRestart: boolean;
}): HeapDecision {
  // Ours is first on the command line when the server restarted itself with it (an operator who put that
  // very flag first gets the growth as well).
  if (input.execArgv[0] === SEMI_SPACE_FLAG)
    return { source: "server defaults", flags: [SEMI_SPACE_FLAG], growth: HEAP_GROWTH };
  const fromNodeOptions = (input.nodeOptions ?? "").split(/\s+/).filter((token) => HEAP_FLAG.test(token));
  const flags = [...fromNodeOptions, ...input.execArgv.filter((arg) => HEAP_FLAG.test(arg))];
  if (flags.length > 0) return { source: "operator", flags };
  if (input.heapSizeLimitBytes < LARGE_HEAP_LIMIT_BYTES) return { source: "host", flags };
  // Without process.execve (Windows) the young generation keeps V8's size; the growth still applies.
  if (!input.canRestart) return { source: "server defaults", flags: [], growth: HEAP_GROWTH };
  return { source: "server defaults", flags: [SEMI_SPACE_FLAG], growth: HEAP_GROWTH, restartWith: SEMI_SPACE_FLAG };
}

/** What `applyHeapDefaults` decided in this process (undefined: it was not called). */
let applied: HeapDecision | undefined;

export function appliedHeapSettings(): HeapDecision | undefined {
  return applied;
}

/**
 * Call it first thing, before the application's modules are loaded. `process.execve` replaces the process in place (same pid: a container's
 * PID 1 stays the server, and signals reach it), before it has opened anything; the operator's NODE_OPTIONS
 * and arguments are passed on unchanged. The growth factor is set at run time, where a V8 that no longer
 * knows the flag ignores it (on the command line it would refuse to start).
 */
export function applyHeapDefaults(): HeapDecision {
  const decision = decideHeapSettings({
    execArgv: process.execArgv,
    nodeOptions: process.env.NODE_OPTIONS,
    heapSizeLimitBytes: getHeapStatistics().heap_size_limit,
    canRestart: typeof process.execve === "function",
  });
  if (decision.restartWith && process.execve) {
    try {
      process.execve(process.execPath, [
        process.execPath,
        decision.restartWith,
        ...process.execArgv,
        ...process.argv.slice(1),
      ]);
    } catch {
      // Could not run node again (say, its binary replaced under us): serve on, with the growth factor only.
      followHeapGrowth(GROWTH_POLICY);
      applied = { source: "server defaults", flags: [], growth: HEAP_GROWTH };
      return applied;
    }
  }
  if (decision.source === "server defaults") followHeapGrowth(GROWTH_POLICY);
  applied = decision;
  return decision;
}

/** For the start log: what V8 was told and the limit it reports. */
export function heapSettingsForLog(decision: HeapDecision): Record<string, unknown> {
  return {
    heapSettings: decision.source,
    heapFlags: decision.flags.join(" "),
    ...(decision.growth ? { heapGrowth: decision.growth } : {}),
    heapLimitMiB: Math.round(getHeapStatistics().heap_size_limit / 1024 / 1024),
  };
}
