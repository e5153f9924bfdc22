/**
 * What the core handler's OpenTelemetry instrumentation costs per GetTask, in process: no sockets, no
 * database, so the figure is the handler's own CPU and the SDK's, steady enough to see a microsecond.
 * Each setting runs in a process of its own (the SDK registers globally), started with the reference
 * server's own `startTelemetry`, exactly as `serve` starts it; the settings take turns, several times.
 *
 *   node bench/a2a/telemetry-in-process.ts                    # every setting, 5 turns each
 *   node bench/a2a/telemetry-in-process.ts --settings none,sampled --turns 9
 *
 * Settings: none (no SDK: the API's no-ops), metrics (a Prometheus reader), sampled-0 (metrics + OTLP
 * traces with the parent-based ratio sampler at 0: every span dropped), sampled (at 0.1), all (every span
 * exported). Spans go to an OTLP receiver in the parent process that discards them.
 */
import { execFileSync } from "node:child_process";
import { parseArgs } from "node:util";
import { median } from "../metrics/stats.ts";
import { oursDialect } from "./dialects.ts";
import { otlpTracesEnv, startOtlpSink } from "./otlp-sink.ts";

const SETTINGS = {
  none: {},
  metrics: { metricsPort: 0 },
  "sampled-0": { metricsPort: 0, traces: "0" },
  sampled: { metricsPort: 0, traces: "0.1" },
  all: { metricsPort: 0, traces: "1" },
} as const satisfies Record<string, { metricsPort?: number; traces?: string }>;
type Setting = keyof typeof SETTINGS;

const CALLS = 100_000;
const BATCHES = 7;

async function child(setting: Setting, sink: string): Promise<void> {
  const config = SETTINGS[setting] as { metricsPort?: number; traces?: string };
  const { createPinoLogger, startTelemetry } = await import("@a2a-partner/a2a-core/node-runtime");
  // The Node SDK reads its settings (sampler, endpoint) from process.env, as in the server.
  if (config.traces) Object.assign(process.env, otlpTracesEnv(sink, config.traces));
  const telemetry = await startTelemetry(
    { metricsPort: config.metricsPort, metricsHost: "127.0.0.1", serviceName: "bench" },
    createPinoLogger({ level: "error", format: "json", service: "bench" }),
  );
  // Loaded after the SDK, as the server loads its app after `startTelemetry`.
  const core = (await import(
    "../../packages/a2a-core/dist/index.js"
  )) as typeof import("../../packages/a2a-core/dist/index.js");
  const handler = core.createA2AHandler({
    stores: core.createInMemoryStores(),
    executor: core.environmentExecutor({
      hasEnvironment: async () => true,
      execute: async () => ({ state: "TASK_STATE_COMPLETED", message: "Done" }),
    }),
    authenticate: async () => ({ ok: true, workspaceId: "ws-bench" }),
    leaseMs: 60_000,
  });
  const headers = new Headers({ "content-type": "application/json", authorization: "Bearer t" });
  const send = await handler.handle({
    headers,
    body: oursDialect("t", "store-1").start(crypto.randomUUID()),
  });
  if (send.kind !== "sse") throw new Error(`start failed: ${JSON.stringify(send)}`);
  let frames = "";
  for await (const frame of send.frames) frames += frame;
  const taskId = /"id":"([0-9a-f-]{36})"/.exec(frames)?.[1];
  if (!taskId || !frames.includes("completed")) throw new Error(`the task did not complete: ${frames}`);
  const body = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: taskId } });
  const request = { headers, body };
  const perCallNs: number[] = [];
  for (let batch = 0; batch <= BATCHES; batch++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < CALLS; i++) {
      const response = await handler.handle(request);
      if (response.kind !== "json" || response.status !== 200) throw new Error("GetTask failed");
    }
    const used = process.cpuUsage(cpu);
    // Batch 0 warms the JIT and is not counted.
    if (batch > 0) perCallNs.push(((used.user + used.system) * 1000) / CALLS);
  }
  await telemetry?.stop();
  process.stdout.write(`${JSON.stringify({ setting, ns: median(perCallNs) })}\n`);
  process.exit(0);
}

async function parent(): Promise<void> {
  const { values } = parseArgs({
    options: {
      settings: { type: "string", default: Object.keys(SETTINGS).join(",") },
      turns: { type: "string", default: "5" },
    },
  });
  const settings = values.settings.split(",").map((s) => s.trim()) as Setting[];
  if (!settings.every((s) => s in SETTINGS)) throw new Error(`--settings: ${Object.keys(SETTINGS).join(", ")}`);
  const turns = Number(values.turns);
  const sink = await startOtlpSink();
  const url = sink.url;
  const figures = new Map<Setting, number[]>(settings.map((s) => [s, []]));
  for (let turn = 0; turn < turns; turn++) {
    for (const setting of settings) {
      const out = execFileSync(process.execPath, [new URL(import.meta.url).pathname, "--child", setting, url], {
        encoding: "utf8",
      });
      const { ns } = JSON.parse(out.trim().split("\n").at(-1) as string) as { ns: number };
      figures.get(setting)?.push(ns);
      process.stderr.write(`turn ${turn + 1} ${setting}: ${(ns / 1000).toFixed(2)} µs CPU per GetTask\n`);
    }
  }
  await sink.close();
  const base = median(figures.get(settings[0] as Setting) ?? []);
  process.stdout.write(`\nIn-process GetTask (handler.handle, in-memory stores), median of ${turns} turns:\n`);
  for (const [setting, ns] of figures) {
    const m = median(ns);
    process.stdout.write(
      `  ${setting.padEnd(10)} ${(m / 1000).toFixed(2)} µs CPU per call` +
        (setting === settings[0] ? "" : ` (+${((m - base) / 1000).toFixed(2)} µs over ${settings[0]})`) +
        `; turns ${ns.map((n) => (n / 1000).toFixed(2)).join(" ")}\n`,
    );
  }
}

const [, , flag, setting, sink] = process.argv;
if (flag === "--child") await child(setting as Setting, sink as string);
else await parent();
