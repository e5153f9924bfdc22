import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it, vi } from "vitest";
import { followHeapGrowth, growingPercentFor } from "./heap-growth.js";

const MiB = 1024 * 1024;
const policy = { floorPercent: 50, minimumRoomBytes: 48 * MiB };
/** Where V8 collects the old generation next, for `live` bytes alive and the percent set for it. */
const nextLimitMiB = (live: number) => (live * (1 + growingPercentFor(live, policy) / 100)) / MiB;

/** A real full GC in this worker (`--expose-gc` set at run time, `gc` taken from a fresh context). */
function fullGc(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
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
      fullGc();
      await vi.waitFor(() => expect(set).toEqual(["--heap-growing-percent=100", "--heap-growing-percent=50"]));
      // The same percent is not set again.
      fullGc();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(set).toHaveLength(2);
    } finally {
      stop();
    }
    alive = 20 * MiB;
    fullGc();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(set).toHaveLength(2);
  });
});
