/**
 * SendMessage, blocking, to a terminal state: ours (an agent on the core, ours-agent-server.ts, on the
 * embedded PGlite) against the official SDK's twin (sdk-server.ts, its InMemoryTaskStore), both with the
 * same executor (STEPS statuses STEP_MS apart, an artifact, `completed`), in one run. `concurrency`
 * clients each send a v1.0 `SendMessage` and wait for its answer, again and again; the figures are the
 * calls answered with a completed task per second in the window, and their latency.
 *
 *   pnpm bench:a2a:send-message                                  # about 30 s
 *   pnpm bench:a2a:send-message --duration 10 --concurrency 32 --steps 5 --step-ms 40
 */
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { median, ms, quantile } from "../metrics/stats.ts";
import { createPool, type Pool } from "./load.ts";
import { startScriptServer } from "./targets.ts";

const { values: args } = parseArgs({
  options: {
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "1" },
    concurrency: { type: "string", default: "16" },
    steps: { type: "string", default: "5" },
    "step-ms": { type: "string", default: "40" },
  },
});
const durationMs = Number(args.duration) * 1000;
const warmupMs = Number(args.warmup) * 1000;
const concurrency = Number(args.concurrency);
const PATH = "/api/v1/a2a";

const TARGETS = [
  { label: "ours (core, PGlite in memory)", script: "./ours-agent-server.ts", env: {} },
  { label: "sdk (@a2a-js/sdk, in memory)", script: "./sdk-server.ts", env: { STORE: "memory" } },
];

function sendBody(messageId: string): string {
  return JSON.stringify({
    jsonrpc: "2.0",
    id: messageId,
    method: "SendMessage",
    params: {
      message: { messageId, role: "ROLE_USER", parts: [{ text: "Restock aisle 5" }] },
      metadata: { storeId: "store-001" },
    },
  });
}

async function send(pool: Pool): Promise<string> {
  const { body } = await pool.request({
    method: "POST",
    path: PATH,
    headers: { "content-type": "application/json", "a2a-version": "1.0", authorization: "Bearer bench" },
    body: sendBody(crypto.randomUUID()),
  });
  return body.text();
}

async function measure(pool: Pool) {
  // The first answer is checked in full: a blocking SendMessage answers the completed task.
  const first = JSON.parse(await send(pool)) as { result?: { task?: { status?: { state?: string } } } };
  const state = first.result?.task?.status?.state;
  if (state !== "TASK_STATE_COMPLETED") throw new Error(`SendMessage answered ${JSON.stringify(first)}`);
  const windowStart = performance.now() + warmupMs;
  const windowEnd = windowStart + durationMs;
  const latencies: number[] = [];
  let failures = 0;
  const client = async () => {
    while (performance.now() < windowEnd) {
      const sentAt = performance.now();
      const answer = await send(pool).catch(() => "");
      const at = performance.now();
      if (at < windowStart || at > windowEnd) continue;
      if (answer.includes('"TASK_STATE_COMPLETED"')) latencies.push(at - sentAt);
      else failures++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return { perSecond: latencies.length / (durationMs / 1000), latencies, failures };
}

const rows: string[] = [];
for (const target of TARGETS) {
  const server = await startScriptServer(fileURLToPath(new URL(target.script, import.meta.url)), {
    ...target.env,
    STEPS: String(args.steps),
    STEP_MS: String(args["step-ms"]),
  });
  const pool = createPool(server.origin, concurrency + 2);
  try {
    console.log(`${target.label}: ${concurrency} clients, ${durationMs / 1000} s after ${warmupMs / 1000} s …`);
    const run = await measure(pool);
    rows.push(
      `| ${target.label} | ${run.perSecond.toFixed(0)} | ${ms(median(run.latencies))} | ` +
        `${ms(quantile(run.latencies, 0.95))} | ${run.failures} |`,
    );
  } finally {
    await pool.close();
    await server.kill("SIGKILL");
  }
}
console.log(
  `\nSendMessage (blocking, to completed; ${args.steps} steps × ${args["step-ms"]} ms), ` +
    `load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}:\n`,
);
console.log("| target | completed calls/s | median ms | p95 ms | failures |\n|---|---:|---:|---:|---:|");
for (const row of rows) console.log(row);
