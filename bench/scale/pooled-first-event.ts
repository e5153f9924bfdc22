/**
 * The first event of a streaming start through PgBouncer (transaction mode) against a direct connection,
 * one instance each on the same database, starts alternating, nothing else running. With `--statements`,
 * each path's DATABASE_URL goes through a statement tap first, and what one start executes on the way
 * (statement kinds, Parse messages) is printed instead of timings (the tap adds its own hop).
 *
 *   node bench/scale/pooled-first-event.ts --samples 60
 *   node bench/scale/pooled-first-event.ts --statements
 *
 * Not in CI: a bench. See bench/NOTES.md ("First event through the pooler").
 */

import {
  createPostgresStore,
  type ServerProcess,
  seedWithCli,
  startServerProcess,
} from "../../examples/server/test/support/server-process.ts";
import { startStatementTap } from "../../examples/server/test/support/statement-tap.ts";
import { A2AClient } from "../../packages/a2a-client/dist/index.js";
import { startPgBouncer } from "../../test/support/pgbouncer.ts";
import { benchFlags } from "../flags.ts";
import { median, quantile } from "../metrics/stats.ts";

const flags = benchFlags({ samples: "60", step: "20", warmup: "10" }, ["statements"]);
const SAMPLES = Number(flags.samples);
const inventory = flags.switches.has("statements");

const store = await createPostgresStore();
const seeded = await seedWithCli(store.env);
const database = new URL(store.url).pathname.slice(1);
const bouncer = await startPgBouncer({
  databases: { pooled: `host=127.0.0.1 port=5432 dbname=${database}` },
  poolSize: 40,
});
const primary = new URL(store.url);
const pgTap = inventory
  ? await startStatementTap({ host: "127.0.0.1", port: Number(primary.port || 5432) })
  : undefined;
const bouncerTap = inventory ? await startStatementTap({ host: "127.0.0.1", port: bouncer.port }) : undefined;
// No push thread, a slow robot: the start and its first frame, not the work after it, share the cores.
const common = {
  ROBOT_STEP_MS: flags.step,
  LOG_LEVEL: "info",
  RATE_LIMIT_PER_SECOND: "0",
  PUSH_DISPATCH_THREAD: "off",
};
const servers: ServerProcess[] = [];
try {
  const pooledUrl = bouncer.url("pooled");
  const pooled = await startServerProcess({
    ...common,
    DATABASE_URL: bouncerTap ? bouncerTap.proxied(pooledUrl) : pooledUrl,
    DATABASE_LISTEN_URL: store.url,
    DATABASE_POOLER: "transaction",
  });
  servers.push(pooled);
  const direct = await startServerProcess({
    ...common,
    DATABASE_URL: pgTap ? pgTap.proxied(store.url) : store.url,
    DATABASE_LISTEN_URL: store.url,
  });
  servers.push(direct);
  const clients = {
    pooled: new A2AClient({ baseUrl: pooled.url, token: seeded.partnerToken }),
    direct: new A2AClient({ baseUrl: direct.url, token: seeded.partnerToken }),
  };
  const firstEvent = async (client: A2AClient) => {
    const t0 = performance.now();
    const stream = client.sendStreamingMessage({ text: "Count aisle 1", storeId: seeded.storeId });
    let first = 0;
    for await (const _ of stream) {
      if (first === 0) first = performance.now() - t0;
    }
    return first;
  };
  const samples = { pooled: [] as number[], direct: [] as number[] };
  const warmup = Number(flags.warmup);
  for (let i = 0; i < warmup + (inventory ? 1 : SAMPLES); i++) {
    // Alternating which goes first, so neither always follows the other's wake-ups.
    const order = i % 2 === 0 ? (["pooled", "direct"] as const) : (["direct", "pooled"] as const);
    for (const name of order) {
      if (inventory && i === warmup) (name === "pooled" ? bouncerTap : pgTap)?.clear();
      const ms = await firstEvent(clients[name]);
      if (inventory && i === warmup) {
        const tap = name === "pooled" ? bouncerTap : pgTap;
        console.log(`${name}: ${tap?.executed.length} statements for one start to its end`);
        for (const sql of tap?.executed ?? []) console.log(`  ${sql.replace(/\s+/g, " ").slice(0, 110)}`);
      }
      if (i >= warmup) samples[name].push(ms);
    }
  }
  await clients.pooled.close();
  await clients.direct.close();
  if (!inventory) {
    const p = (v: number[], q: number) => Number(quantile(v, q).toFixed(2));
    const pooledMedian = median(samples.pooled);
    const directMedian = median(samples.direct);
    console.log(
      JSON.stringify({
        samples: SAMPLES,
        pooledMs: { p50: p(samples.pooled, 0.5), p90: p(samples.pooled, 0.9) },
        directMs: { p50: p(samples.direct, 0.5), p90: p(samples.direct, 0.9) },
        pooledOverDirect: `${(((pooledMedian - directMedian) / directMedian) * 100).toFixed(1)} %`,
      }),
    );
  }
} finally {
  for (const server of servers) await server.kill("SIGTERM");
  await bouncerTap?.close();
  await pgTap?.close();
  await bouncer.stop();
  await store.drop();
}
