import { constants, PerformanceObserver } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { followHeapGrowth, growingPercentFor, oldGenerationUsedBytes } from "./heap-growth.js";

const MiB = 1024 * 1024;
const policy = { floorPercent: 50, minimumRoomBytes: 48 * MiB };
/** Where V8 collects the old generation next, for `live` bytes alive and the percent set for it. */
const nextLimitMiB = (live: number) => (live * (1 + growingPercentFor(live, policy) / 100)) / MiB;

// A real full GC in this worker: `gc` taken from a fresh context while --expose-gc is on, then the flag
// turned off again so that no later context or worker of this process sees a `gc` global.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
setFlagsFromString("--no-expose-gc");

/**
 * A full GC, resolved once the GC's entry has reached observers (the follower's among them). Node hands GC
 * entries over on an unref'd immediate, run only when something else turns the event loop: a timer does.
 */
async function fullGcObserved(): Promise<void> {
  const turning = setInterval(() => {}, 1);
  const seen = new Promise<void>((resolve) => {
    const probe = new PerformanceObserver((list) => {
      const full = list
        .getEntries()
        .some((e) => (e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR);
      if (!full) return;
      probe.disconnect();
      setImmediate(resolve);
    });
    probe.observe({ entryTypes: ["gc"] });
  });
  gc();
  await seen.finally(() => clearInterval(turning));
}

describe("the old generation's growth, from what is alive", () => {
  it("doubles a small heap, gives a middling one 48 MiB of room and a large one half of what is alive", () => {
    expect(nextLimitMiB(20 * MiB)).toBe(40);
    expect(nextLimitMiB(48 * MiB)).toBe(96);
    expect(nextLimitMiB(64 * MiB)).toBeCloseTo(112, 0);
    expect(nextLimitMiB(96 * MiB)).toBe(144);
    expect(nextLimitMiB(300 * MiB)).toBe(450);
  });

  it("never leaves less room as more is alive, and never more than V8's 2× on a smaller host", () => {
    let room = 0;
    for (let live = MiB; live <= 512 * MiB; live += MiB / 2) {
      const percent = growingPercentFor(live, policy);
      expect(percent).toBeGreaterThanOrEqual(50);
      expect(percent).toBeLessThanOrEqual(100);
      // Rounded up to a whole percent: the room may only grow.
      expect((live * percent) / 100).toBeGreaterThanOrEqual(room - live / 100);
      room = (live * percent) / 100;
    }
  });

  it("sets the flag at once, then again after a full GC when what is alive calls for another percent", async () => {
    let alive = 20 * MiB;
    const set: string[] = [];
    const stop = followHeapGrowth(policy, { liveBytes: () => alive, setFlags: (flags) => set.push(flags) });
    try {
      expect(set).toEqual(["--heap-growing-percent=100"]);
      alive = 200 * MiB;
      await fullGcObserved();
      expect(set).toEqual(["--heap-growing-percent=100", "--heap-growing-percent=50"]);
      // The same percent is not set again.
      await fullGcObserved();
      expect(set).toHaveLength(2);
    } finally {
      stop();
    }
    alive = 20 * MiB;
    await fullGcObserved();
    expect(set).toHaveLength(2);
  });

  it("reads what this process's old generation holds: more alive, less room as a share", async () => {
    await fullGcObserved();
    // Room for what is alive now and 32 MiB more: 100 % until more than that is alive.
    const before = oldGenerationUsedBytes();
    const room = before + 32 * MiB;
    const set: string[] = [];
    const stop = followHeapGrowth(
      { floorPercent: 50, minimumRoomBytes: room },
      { setFlags: (flags) => set.push(flags) },
    );
    try {
      expect(set).toEqual(["--heap-growing-percent=100"]);
      // 64 MiB more alive (arrays of doubles, on V8's heap).
      const held = Array.from({ length: 8 }, () => new Array<number>(MiB).fill(0.5));
      await fullGcObserved();
      const percent = Number(set.at(-1)?.split("=")[1]);
      // The room over what is alive now, give or take 8 MiB of what the worker freed or allocated meanwhile.
      const heldBytes = held.length * MiB * 8;
      expect(percent).toBeGreaterThan(50);
      expect(percent).toBeLessThanOrEqual(Math.ceil((100 * room) / (before + heldBytes - 8 * MiB)));
    } finally {
      stop();
    }
  });
});
