/**
 * Where the pooler's time goes in a task start, the statement alone: `PostgresTaskStore.create` (the
 * start statement, one round trip) timed directly with named statements (a direct server), directly with
 * unnamed ones (what `transactionPooler` sends, without the pooler: the parse and plan per call), and
 * through PgBouncer in transaction mode (unnamed, plus the hop through its process); `select 1` for the
 * hop alone. Rounds alternate the four, so the host's load falls on all of them alike.
 *
 *   node bench/scale/pooled-statement.ts --rounds 400
 */

import { createPostgresStore } from "../../examples/server/test/support/server-process.ts";
import { storeFixtures } from "../../packages/a2a-core/dist/testing.js";
import {
  createPostgresStores,
  type Database,
  migrate,
  openDatabase,
} from "../../packages/postgres-store/dist/index.js";
import { startPgBouncer } from "../../test/support/pgbouncer.ts";
import { benchFlags } from "../flags.ts";
import { median, quantile } from "../metrics/stats.ts";

const flags = benchFlags({ rounds: "400" });
const ROUNDS = Number(flags.rounds);
const store = await createPostgresStore();
const database = new URL(store.url).pathname.slice(1);
const bouncer = await startPgBouncer({
  databases: { pooled: `host=127.0.0.1 port=5432 dbname=${database}` },
  poolSize: 4,
});
const pool = { max: 1 };
const opened: Record<string, Database> = {
  named: await openDatabase({ url: store.url, pool }),
  unnamed: await openDatabase({ url: store.url, pool, transactionPooler: true, listenUrl: store.url }),
  pgbouncer: await openDatabase({ url: bouncer.url("pooled"), pool, transactionPooler: true, listenUrl: store.url }),
};
try {
  await migrate(opened.named as Database);
  const { newTask } = storeFixtures();
  const workspace = crypto.randomUUID();
  const times: Record<string, { start: number[]; select1: number[] }> = {};
  for (const name of Object.keys(opened)) times[name] = { start: [], select1: [] };
  for (let round = 0; round < ROUNDS + 20; round++) {
    const names = Object.keys(opened);
    if (round % 2) names.reverse();
    for (const name of names) {
      const db = opened[name] as Database;
      const stores = createPostgresStores(db);
      let t0 = performance.now();
      await stores.tasks.create(newTask(workspace));
      const start = performance.now() - t0;
      t0 = performance.now();
      await db.query("select 1");
      const select1 = performance.now() - t0;
      if (round < 20) continue; // warm-up: connections made, statements prepared
      times[name]?.start.push(start);
      times[name]?.select1.push(select1);
    }
  }
  const row = (v: number[]) => `p50 ${median(v).toFixed(3)} ms, p90 ${quantile(v, 0.9).toFixed(3)} ms`;
  for (const [name, t] of Object.entries(times)) {
    console.log(`${name.padEnd(10)} start: ${row(t.start)} | select 1: ${row(t.select1)}`);
  }
} finally {
  for (const db of Object.values(opened)) await db.close();
  await bouncer.stop();
  await store.drop();
}
