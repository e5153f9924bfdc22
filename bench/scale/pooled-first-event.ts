/**
 * The first event of a streaming start through PgBouncer (transaction mode) against a direct connection,
 * one instance each on the same database, starts alternating, nothing else running; and, in the same run,
 * how much later a second instance of the same path delivers the task's later events to a stream that
 * resumed there (`subscribeToTask` from the first event's id): the cross-instance path, a `NOTIFY` to the
 * second instance's direct `LISTEN` and its read of the events (through the pooler, on the pooled path),
 * against the running instance's own delivery. With `--statements`,
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
  // A second instance of each path, where a stream resumes (not used for --statements).
  const pooledB = inventory
    ? pooled
    : await startServerProcess({
        ...common,
        DATABASE_URL: pooledUrl,
        DATABASE_LISTEN_URL: store.url,
        DATABASE_POOLER: "transaction",
      });
  if (pooledB !== pooled) servers.push(pooledB);
  const directB = inventory
    ? direct
    : await startServerProcess({ ...common, DATABASE_URL: store.url, DATABASE_LISTEN_URL: store.url });
  if (directB !== direct) servers.push(directB);
  const clients = {
    pooled: new A2AClient({ baseUrl: pooled.url, token: seeded.partnerToken }),
    direct: new A2AClient({ baseUrl: direct.url, token: seeded.partnerToken }),
  };
  const resumers = {
    pooled: new A2AClient({ baseUrl: pooledB.url, token: seeded.partnerToken }),
    direct: new A2AClient({ baseUrl: directB.url, token: seeded.partnerToken }),
  };
  /**
   * One start on `client`: its first event's time, and with `resumer`, the median lag of the second
   * instance's stream behind the first's for events 3 on (event 2 may come before the resumed stream is
   * open, and would then be a replay).
   */
  const firstEvent = async (client: A2AClient, resumer?: A2AClient) => {
    const t0 = performance.now();
    const stream = client.sendStreamingMessage({ text: "Count aisle 1", storeId: seeded.storeId });
    let first = 0;
    const seenHere = new Map<string, number>();
    let resumed: Promise<Map<string, number>> | undefined;
    for await (const event of stream) {
      const at = performance.now();
      if (first === 0) {
        first = at - t0;
        if (resumer && event.type === "task" && event.eventId !== undefined) {
          const followed = resumer.subscribeToTask(event.task.id, { lastEventId: event.eventId });
          resumed = (async () => {
            const seenThere = new Map<string, number>();
            for await (const later of followed) if (later.eventId) seenThere.set(later.eventId, performance.now());
            return seenThere;
          })();
        }
      }
      if (event.eventId !== undefined) seenHere.set(event.eventId, at);
    }
    const seenThere = (await resumed) ?? new Map<string, number>();
    const lags = [...seenThere]
      .filter(([id]) => Number(id) >= 3 && seenHere.has(id))
      .map(([id, at]) => at - (seenHere.get(id) as number));
    return { first, lag: lags.length > 0 ? median(lags) : undefined };
  };
  const samples = { pooled: [] as number[], direct: [] as number[] };
  const lags = { pooled: [] as number[], direct: [] as number[] };
  const warmup = Number(flags.warmup);
  for (let i = 0; i < warmup + (inventory ? 1 : SAMPLES); i++) {
    // Alternating which goes first, so neither always follows the other's wake-ups.
    const order = i % 2 === 0 ? (["pooled", "direct"] as const) : (["direct", "pooled"] as const);
    for (const name of order) {
      if (inventory && i === warmup) (name === "pooled" ? bouncerTap : pgTap)?.clear();
      const { first: ms, lag } = await firstEvent(clients[name], inventory ? undefined : resumers[name]);
      if (inventory && i === warmup) {
        const tap = name === "pooled" ? bouncerTap : pgTap;
        console.log(`${name}: ${tap?.executed.length} statements for one start to its end`);
        for (const sql of tap?.executed ?? []) console.log(`  ${sql.replace(/\s+/g, " ").slice(0, 110)}`);
      }
      if (i >= warmup) samples[name].push(ms);
      if (i >= warmup && lag !== undefined) lags[name].push(lag);
    }
  }
  for (const client of [...Object.values(clients), ...Object.values(resumers)]) await client.close();
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
        resumedLagMs: {
          pooled: { n: lags.pooled.length, p50: p(lags.pooled, 0.5), p90: p(lags.pooled, 0.9) },
          direct: { n: lags.direct.length, p50: p(lags.direct, 0.5), p90: p(lags.direct, 0.9) },
        },
        resumedLagPooledOverDirect: `${(((median(lags.pooled) - median(lags.direct)) / median(lags.direct)) * 100).toFixed(1)} %`,
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
