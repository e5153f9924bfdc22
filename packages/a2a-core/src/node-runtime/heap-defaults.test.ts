import { describe, expect, it } from "vitest";
import { decideHeapSettings, HEAP_GROWTH, SEMI_SPACE_FLAG } from "./heap-defaults.js";

const GiB = 1024 * 1024 * 1024;
const largeHost = { execArgv: [], nodeOptions: undefined, heapSizeLimitBytes: 4 * GiB, canRestart: true };

describe("the heap settings serve starts with", () => {
  it("on a large host with no heap flags: start again with the semi-space cap, then the growth factor", () => {
    expect(decideHeapSettings(largeHost)).toEqual({
      source: "server defaults",
      flags: [SEMI_SPACE_FLAG],
      growth: HEAP_GROWTH,
      restartWith: SEMI_SPACE_FLAG,
    });
    // The start that follows, with the flag first and the operator's arguments after it.
    const restarted = { ...largeHost, execArgv: [SEMI_SPACE_FLAG, "--enable-source-maps"] };
    expect(decideHeapSettings(restarted)).toEqual({
      source: "server defaults",
      flags: [SEMI_SPACE_FLAG],
      growth: HEAP_GROWTH,
    });
  });

  it.each([
    { nodeOptions: "--enable-source-maps --max-old-space-size=1024", flag: "--max-old-space-size=1024" },
    { nodeOptions: "  --max_semi_space_size=8 ", flag: "--max_semi_space_size=8" },
    { execArgv: ["--heap-growing-percent=30"], flag: "--heap-growing-percent=30" },
    { execArgv: ["--enable-source-maps", "--max-semi-space-size=32"], flag: "--max-semi-space-size=32" },
  ])("leaves the heap to the operator's own flag $flag", ({ flag, ...input }) => {
    expect(decideHeapSettings({ ...largeHost, ...input })).toEqual({ source: "operator", flags: [flag] });
  });

  it("does not count other flags as heap flags", () => {
    const input = { ...largeHost, nodeOptions: "--max-http-header-size=16384 --stack-size=2000" };
    expect(decideHeapSettings(input).source).toBe("server defaults");
  });

  it("leaves a host whose V8 heap limit is under 2 GiB to V8 (its growth factor is ≤ 2 there)", () => {
    expect(decideHeapSettings({ ...largeHost, heapSizeLimitBytes: 2 * GiB - 1 })).toEqual({
      source: "host",
      flags: [],
    });
  });

  it("without process.execve, only the growth factor applies", () => {
    expect(decideHeapSettings({ ...largeHost, canRestart: false })).toEqual({
      source: "server defaults",
      flags: [],
      growth: HEAP_GROWTH,
    });
  });
});
