import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const nodeRuntime = fileURLToPath(new URL("../dist/node-runtime.js", import.meta.url));

// The built package in a node of its own, as `serve` starts it (the semi-space flag first, so no restart):
// V8's own trace of each full GC's growth factor shows the percent the server set reached V8.
const script = `
import { applyHeapDefaults } from ${JSON.stringify(nodeRuntime)};
const tick = () => new Promise((resolve) => setImmediate(resolve));
applyHeapDefaults();
gc();
await tick();
const held = [];
for (let round = 0; round < 4; round++) {
  for (let i = 0; i < 6; i++) held.push(new Array(1 << 20).fill(0.5)); // 48 MiB more alive each round
  gc();
  await tick();
}
console.log("held", held.length);
`;

describe("applyHeapDefaults, in V8", () => {
  it("collects a small old generation at 2× what is alive and, once ~200 MiB is alive, at 1.5×", () => {
    const trace = execFileSync(
      process.execPath,
      ["--max-semi-space-size=16", "--expose-gc", "--trace-gc-verbose", "--input-type=module", "-e", script],
      { env: { PATH: process.env.PATH }, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
    );
    expect(trace).toContain("held 24");
    const factors = [...trace.matchAll(/\[HeapController\] factor ([\d.]+)/g)].map((m) => Number(m[1]));
    expect(factors.length).toBeGreaterThan(2);
    // V8's own factor here would be 4.0 throughout; a flat percent would give one value throughout.
    expect(factors[0]).toBe(2);
    expect(factors.at(-1)).toBe(1.5);
  });
});
