/**
 * The cost of NOTIFY fan-out as instances grow: every group commit of the event log sends one
 * `NOTIFY a2a_task_events`, and every instance's LISTEN connection receives every one of them
 * (docs/operations.md, "Past one database box"). Here `instances` LISTEN connections on one channel, and
 * `senders` connections committing one notification per transaction as fast as they can for `seconds`.
 * Reported: commits/s, the commit's latency, and the CPU PostgreSQL spent (the senders' and listeners'
 * own backends, read from /proc) per notification sent, at each instance count.
 *
 *   node bench/scale/notify-fanout.ts --instances 1,4,16 --seconds 5
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { POSTGRES_URL } from "../../test/support/postgres.ts";
import { benchFlags } from "../flags.ts";
import { quantile } from "../metrics/stats.ts";

// bench/ is not a workspace package: pg resolves from the reference server, which depends on it.
const pg = createRequire(new URL("../../examples/server/package.json", import.meta.url))("pg") as typeof import("pg");

const flags = benchFlags({ instances: "1,4,16", seconds: "5", senders: "4", payload: "40" });
const CHANNEL = `a2a_fanout_bench_${process.pid}`;

async function backendCpuSeconds(pids: number[]): Promise<number> {
  let total = 0;
  for (const pid of pids) {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    total += (Number(fields[11]) + Number(fields[12])) / 100;
  }
  return total;
}

async function connect(): Promise<{ client: import("pg").Client; pid: number }> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
  return { client, pid: rows[0]?.pid as number };
}

const results = [];
for (const instances of flags.instances.split(",").map(Number)) {
  const listeners = await Promise.all(Array.from({ length: instances }, connect));
  let received = 0;
  for (const { client } of listeners) {
    client.on("notification", () => {
      received++;
    });
    await client.query(`listen ${CHANNEL}`);
  }
  const senders = await Promise.all(Array.from({ length: Number(flags.senders) }, connect));
  const pids = [...listeners, ...senders].map((c) => c.pid);
  const payload = "x".repeat(Number(flags.payload));
  const latencies: number[] = [];
  let sent = 0;
  const cpuBefore = await backendCpuSeconds(pids);
  const started = performance.now();
  const end = started + Number(flags.seconds) * 1000;
  await Promise.all(
    senders.map(async ({ client }) => {
      while (performance.now() < end) {
        const t0 = performance.now();
        await client.query("begin");
        await client.query("select pg_notify($1, $2)", [CHANNEL, payload]);
        await client.query("commit");
        latencies.push(performance.now() - t0);
        sent++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  // Let the listeners drain before their CPU is read.
  for (let i = 0; i < 100 && received < sent * instances; i++) await new Promise((r) => setTimeout(r, 50));
  const cpu = (await backendCpuSeconds(pids)) - cpuBefore;
  results.push({
    instances,
    commitsPerSecond: Math.round(sent / seconds),
    commitMs: { p50: quantile(latencies, 0.5).toFixed(2), p99: quantile(latencies, 0.99).toFixed(2) },
    delivered: `${received}/${sent * instances}`,
    postgresCpuMicrosPerNotify: Math.round((cpu / sent) * 1e6),
    postgresCpuMicrosPerDelivery: Math.round((cpu / (sent * instances)) * 1e6),
  });
  for (const c of [...listeners, ...senders]) await c.client.end();
}
console.table(results);
