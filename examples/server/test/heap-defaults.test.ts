import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { storePerSuite } from "./support/process-suite.ts";
import { createPgliteStore, startServerProcess, stopAllServerProcesses } from "./support/server-process.ts";

/** V8's heap limit, in MiB, of a plain node started with these flags. */
function plainNodeHeapLimitMiB(flags: string[]): number {
  const out = execFileSync(
    process.execPath,
    [...flags, "-p", "require('node:v8').getHeapStatistics().heap_size_limit"],
    {
      env: { PATH: process.env.PATH },
    },
  );
  return Math.round(Number(out.toString()) / 1024 / 1024);
}

function heapLine(log: string): Record<string, unknown> {
  const line = log.split("\n").find((l) => l.includes('"V8 heap settings"'));
  expect(line, log).toBeDefined();
  return JSON.parse(line as string);
}

// `node src/cli.ts serve` as the README and an image run it: V8's heap is sized by the server's defaults
// unless the operator sized it (the RSS figures are in bench/NOTES.md, "rss-30b"; here, that they apply).
describe("serve's V8 heap settings", () => {
  const suite = storePerSuite(createPgliteStore, { seed: false });
  afterEach(() => stopAllServerProcesses());

  it("without heap flags: the young generation capped (same pid) and the growth factor set, and it says so", async () => {
    const server = await startServerProcess({ ...suite.store.env, LOG_FORMAT: "json" });
    const line = heapLine(server.log());
    if (plainNodeHeapLimitMiB([]) >= 2048) {
      expect(line).toMatchObject({
        heapSettings: "server defaults",
        heapFlags: "--max-semi-space-size=16",
        heapGrowth: expect.stringContaining("--heap-growing-percent from what is alive"),
        // The limit V8 reports is the one a start with the cap has: the flag reached V8.
        heapLimitMiB: plainNodeHeapLimitMiB(["--max-semi-space-size=16"]),
      });
      // Restarted in place: the process the operator started (and signals) is the server.
      if (existsSync("/proc/self/cmdline")) {
        expect(readFileSync(`/proc/${server.pid}/cmdline`, "utf8").split("\0")).toContain("--max-semi-space-size=16");
      }
    } else {
      // A small host: V8's own sizing is kept.
      expect(line).toMatchObject({ heapSettings: "host", heapLimitMiB: plainNodeHeapLimitMiB([]) });
    }
  });

  it("an operator's NODE_OPTIONS heap flag wins: nothing of the server's is added", async () => {
    const server = await startServerProcess({
      ...suite.store.env,
      LOG_FORMAT: "json",
      NODE_OPTIONS: "--max-old-space-size=3000",
    });
    const line = heapLine(server.log());
    expect(line).toMatchObject({
      heapSettings: "operator",
      heapFlags: "--max-old-space-size=3000",
      heapLimitMiB: plainNodeHeapLimitMiB(["--max-old-space-size=3000"]),
    });
    expect(line).not.toHaveProperty("heapGrowth");
  });
});
