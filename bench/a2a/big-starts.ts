/**
 * Memory an attacker can pin (issue 30, item 2), measured from outside: our reference server as a fresh
 * clone runs it (default settings, a fresh PostgreSQL database), one token starting tasks at the
 * documented request bounds — 16 KiB of text, 16 KiB of metadata and 16 KiB of data-part JSON, both
 * shaped as thousands of tiny containers (the heaviest a parse can make them) — and dropping each
 * stream after its first frame. Prints the server's RSS before, at its peak and after, and whether the
 * server kept answering (a GetTask from another connection, timed, every half second).
 *
 *   node bench/a2a/big-starts.ts                     # 3,000 starts, 32 at a time
 *   node bench/a2a/big-starts.ts --starts 500 --concurrency 16 --robot-step-ms 400
 *   node bench/a2a/big-starts.ts --heap-profile allocated   # where the starts' bytes are allocated
 *   node bench/a2a/big-starts.ts --heap-profile live        # what is held halfway through the starts
 *
 * Target (issue 30): RSS grows by at most 256 MiB over the 3,000 starts, and the server keeps answering.
 * The server runs with its own heap defaults (a2a-core/node-runtime's applyHeapDefaults) unless a heap flag is given: V8's own
 * sizing is `--node-options=--max-semi-space-size=64` (what V8 picks on a host with 16 GB or more).
 * DATABASE_URL_TEST names the PostgreSQL server (default postgres://postgres@127.0.0.1:5432/test).
 */
import { writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import {
  createPostgresStore,
  seedWithCli,
  startServerProcess,
} from "../../examples/server/test/support/server-process.ts";
import { A2A_LIMITS } from "../../packages/a2a-core/dist/index.js";
import { benchFlags } from "../flags.ts";
import { quantile } from "../metrics/stats.ts";
import { summarizeHeapProfile } from "./heap-sampling.ts";
import { collectGarbage, inspectorUrl, type ProcessMemory, processMemory, startHeapSampling } from "./inspector.ts";
import { cpuSeconds, residentByMapping, rssKiB } from "./proc.ts";

const args = benchFlags(
  {
    starts: "3000",
    concurrency: "32",
    // The reference server's default: tasks run for seconds, so many are running at once.
    "robot-step-ms": "400",
    // Node flags for the server, e.g. "--max-semi-space-size=16" (what an operator could set in NODE_OPTIONS;
    // any heap flag turns the server's own heap defaults off).
    "node-options": "",
    // Node flags on the server's command line, space-separated: V8 flags NODE_OPTIONS refuses, e.g.
    // "--heap-growing-percent=50", or "--trace-gc" (printed to --server-stdout).
    "node-args": "",
    "server-stdout": "",
    // Another checkout's examples/server (its packages built), to measure before and after a change.
    "server-dir": "",
    // How long to watch after the last start ("": long enough for the robots to finish every task).
    "settle-seconds": "",
    // "allocated" or "live": a sampling heap profile of the starts (over the inspector, like --heap),
    // summarised by allocation site and saved to --heap-profile-out when given.
    "heap-profile": "",
    "heap-profile-out": "",
  },
  // --heap: also read the live heap after a full GC (over the inspector; a bench-only Node flag).
  // --memory: with each RSS sample, process.memoryUsage() (over the inspector), printed for the peak.
  ["heap", "memory"],
);
const STARTS = Number(args.starts);
const CONCURRENCY = Number(args.concurrency);
const HEAP_PROFILE = args["heap-profile"];
if (HEAP_PROFILE !== "" && HEAP_PROFILE !== "allocated" && HEAP_PROFILE !== "live") {
  throw new Error('--heap-profile is "allocated" or "live"');
}
const INSPECT = args.switches.has("heap") || args.switches.has("memory") || HEAP_PROFILE !== "";

/** JSON of `[x,x,…]` as long as fits in `bytes`. */
function tinyContainers(item: "[]" | "{}", bytes: number): unknown[] {
  const count = Math.floor((bytes - 2 + 1) / (item.length + 1));
  return JSON.parse(`[${Array(count).fill(item).join(",")}]`) as unknown[];
}

/** A SendStreamingMessage body with every bounded field at (just under) its bound. */
function startAtBounds(n: number): string {
  const metadataBudget = A2A_LIMITS.metadataBytes - JSON.stringify({ storeId: "store-001" }).length - 64;
  const params = {
    message: {
      kind: "message",
      role: "user",
      messageId: `big-${n}-${crypto.randomUUID()}`,
      parts: [
        { kind: "text", text: "x".repeat(A2A_LIMITS.textBytes) },
        { kind: "data", data: { rows: tinyContainers("{}", A2A_LIMITS.partContentBytes - 64) } },
      ],
      metadata: { tags: tinyContainers("[]", metadataBudget) },
    },
    metadata: { storeId: "store-001" },
  };
  return JSON.stringify({ jsonrpc: "2.0", id: n, method: "SendStreamingMessage", params });
}

const store = await createPostgresStore();
try {
  const seeded = await seedWithCli(store.env);
  const server = await startServerProcess(
    {
      ...store.env,
      ROBOT_STEP_MS: args["robot-step-ms"],
      LOG_LEVEL: "info",
      NODE_OPTIONS: `${args["node-options"]}${INSPECT ? " --inspect=127.0.0.1:0" : ""}`.trim(),
    },
    {
      nodeArgs: args["node-args"].split(" ").filter(Boolean),
      ...(args["server-stdout"] ? { stdoutFile: args["server-stdout"] } : {}),
      ...(args["server-dir"] ? { serverDir: args["server-dir"] } : {}),
    },
  );
  const inspector = INSPECT ? inspectorUrl(server.log()) : undefined;
  /** Live heap after a full GC, when asked for. */
  const heapMiB = async () =>
    inspector && args.switches.has("heap")
      ? `, heap ${((await collectGarbage(inspector)).usedBytes / 1024 / 1024).toFixed(1)} MiB after GC`
      : "";
  const headers = { authorization: `Bearer ${seeded.partnerToken}`, "content-type": "application/json" };
  const body0 = startAtBounds(0);
  console.log(
    `request body: ${(Buffer.byteLength(body0) / 1024).toFixed(1)} KiB (limit ${A2A_LIMITS.maxBodyBytes / 1024})`,
  );

  /** Starts one task, reads its first frame, hangs up; the status, or the first frame's event name. */
  async function startAndDrop(n: number): Promise<string> {
    for (let attempt = 0; ; attempt++) {
      const controller = new AbortController();
      const res = await fetch(server.a2aUrl, {
        method: "POST",
        headers,
        body: startAtBounds(n),
        signal: controller.signal,
      });
      if ((res.status === 429 || res.status === 503) && attempt < 50) {
        await res.body?.cancel();
        await sleep(Number(res.headers.get("retry-after") ?? "1") * 1000);
        continue;
      }
      if (res.status !== 200 || !res.body) {
        const text = await res.text();
        return `HTTP ${res.status} ${text.slice(0, 120)}`;
      }
      const reader = res.body.getReader();
      const { value } = await reader.read();
      controller.abort();
      const event = /event: (\w+)/.exec(new TextDecoder().decode(value))?.[1];
      return event ?? "no frame";
    }
  }

  await startAndDrop(-1); // warms the path (and checks the body is accepted)
  await sleep(2_000);
  const heapBefore = await heapMiB();
  const baseline = await rssKiB(server.pid);
  let peak = baseline;
  let memoryAtPeak: ProcessMemory | undefined;
  let mappingsAtPeak: string[] = [];
  let running = true;
  const probeMs: number[] = [];
  let probeFailures = 0;
  // Samples RSS and checks the server answers while the starts go on.
  const sampler = (async () => {
    while (running) {
      const rss = await rssKiB(server.pid);
      if (rss > peak) {
        peak = rss;
        if (inspector && args.switches.has("memory")) {
          memoryAtPeak = await processMemory(inspector);
          mappingsAtPeak = await residentByMapping(server.pid);
        }
      }
      const t0 = performance.now();
      try {
        const res = await fetch(server.a2aUrl, {
          method: "POST",
          headers,
          body: JSON.stringify({ jsonrpc: "2.0", id: "probe", method: "GetTask", params: { id: "no-such-task" } }),
          signal: AbortSignal.timeout(10_000),
        });
        await res.text();
        if (res.status === 200) probeMs.push(performance.now() - t0);
        else probeFailures++;
      } catch {
        probeFailures++;
      }
      await sleep(500);
    }
  })();

  const stopSampling =
    HEAP_PROFILE && inspector
      ? await startHeapSampling(inspector, { allocated: HEAP_PROFILE === "allocated" })
      : undefined;
  // A live profile is taken halfway, while starts are in flight and tasks run; an allocation one at the end.
  let profileTaken: ReturnType<NonNullable<typeof stopSampling>> | undefined;
  const outcomes = new Map<string, number>();
  let next = 0;
  let answered = 0;
  const cpu0 = await cpuSeconds(server.pid);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < STARTS) {
        const outcome = await startAndDrop(next++);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
        if (++answered === Math.floor(STARTS / 2) && HEAP_PROFILE === "live") profileTaken = stopSampling?.();
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const serverCpu = (await cpuSeconds(server.pid)) - cpu0;
  const heapProfile = await (profileTaken ?? stopSampling?.());
  const heapAtEnd = await heapMiB();
  // The tasks go on running after their streams were dropped: keep sampling until they have ended.
  await sleep(
    args["settle-seconds"] === "" ? Number(args["robot-step-ms"]) * 12 + 5_000 : Number(args["settle-seconds"]) * 1000,
  );
  running = false;
  await sampler;
  const after = await rssKiB(server.pid);
  const heapAfter = await heapMiB();
  const mib = (kib: number) => `${(kib / 1024).toFixed(1)} MiB`;
  console.log(
    `${STARTS} starts, ${CONCURRENCY} at a time, in ${seconds.toFixed(1)} s (ROBOT_STEP_MS=${args["robot-step-ms"]}); ` +
      `server CPU ${serverCpu.toFixed(1)} s (${((serverCpu / STARTS) * 1000).toFixed(1)} ms a start)`,
  );
  console.log(`outcomes: ${[...outcomes].map(([k, v]) => `${k} ×${v}`).join(", ")}`);
  console.log(`server RSS: ${mib(baseline)} before${heapBefore}`);
  console.log(`  ${mib(peak)} at peak (+${mib(peak - baseline)}); when the last start was answered${heapAtEnd}`);
  if (memoryAtPeak) {
    const { rss, heapTotal, heapUsed, external, arrayBuffers } = memoryAtPeak.usage;
    const m = (bytes: number) => mib(bytes / 1024);
    console.log(
      `  at the peak: rss ${m(rss)}, V8 heap ${m(heapTotal)} reserved (${m(heapUsed)} used, garbage included), ` +
        `external ${m(external)} (array buffers ${m(arrayBuffers)}), other ${m(rss - heapTotal - external)}`,
    );
    const spaces = memoryAtPeak.spaces.filter((space) => space.committed >= 1024 * 1024);
    console.log(
      `  V8 spaces (used / committed): ${spaces.map((x) => `${x.name} ${m(x.used)} / ${m(x.committed)}`).join(", ")}`,
    );
    console.log(`  resident by mapping: ${mappingsAtPeak.join(", ")}`);
  }
  console.log(`  ${mib(after)} after the tasks ended${heapAfter}`);
  console.log(
    `GetTask probes during the run: ${probeMs.length} answered, p50 ${quantile(probeMs, 0.5).toFixed(1)} ms, ` +
      `max ${Math.max(...probeMs).toFixed(1)} ms, ${probeFailures} failed`,
  );
  if (heapProfile) {
    console.log(`heap profile (${HEAP_PROFILE}, over the starts):`);
    console.log(summarizeHeapProfile(heapProfile).join("\n"));
    if (args["heap-profile-out"]) writeFileSync(args["heap-profile-out"], JSON.stringify(heapProfile));
  }
  const met = peak - baseline <= 256 * 1024 && probeFailures === 0;
  console.log(`target (RSS growth ≤ 256 MiB, the server keeps answering): ${met ? "MET" : "NOT MET"}`);
  await server.kill("SIGKILL");
} finally {
  await store.drop();
}
