/**
 * What migration 0009's PL/pgSQL functions take off the hot statements behind a transaction pooler. Through
 * PgBouncer in transaction mode (1.18: no named statements across transactions) every statement is sent
 * unnamed, so PostgreSQL parses and plans it on every call; a PL/pgSQL function keeps its statements'
 * plans for the server session, which the pooler keeps open, so only `select * from fn(…)` is parsed.
 *
 * Times a task start (`PostgresTaskStore.create`, one statement) and a read of its events (`readAfter`)
 * five ways, rounds alternating: named and direct (a direct server), the statements unnamed (the pooled
 * path before 0009), direct and through PgBouncer, and the functions (the pooled path now), direct and
 * through PgBouncer; and `select 1`, for the round trip alone.
 *
 *   node bench/scale/pooled-functions.ts --rounds 400
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
const direct = (transactionPooler: boolean) =>
  openDatabase({ url: store.url, pool, transactionPooler, listenUrl: store.url });
const pooled = () => openDatabase({ url: bouncer.url("pooled"), pool, transactionPooler: true, listenUrl: store.url });

try {
  const setup = await direct(false);
  await migrate(setup);
  await setup.close();
  const { newTask } = storeFixtures();
  const workspace = crypto.randomUUID();
  const ways: Record<string, Database> = {
    "named, direct": await direct(false),
    "unnamed, direct": unnamed(await direct(true)),
    "unnamed, PgBouncer": unnamed(await pooled()),
    "function, direct": await direct(true),
    "function, PgBouncer": await pooled(),
  };
  const times: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
  const reads: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
  const hops: Record<string, number[]> = Object.fromEntries(Object.keys(ways).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS + 20; round++) {
    const names = Object.keys(ways);
    if (round % 2) names.reverse();
    for (const name of names) {
      const stores = createPostgresStores(ways[name] as Database);
      const t0 = performance.now();
      const { task } = await stores.tasks.create(newTask(workspace));
      const t1 = performance.now();
      await stores.events.readAfter(task.id, 0);
      const t2 = performance.now();
      await (ways[name] as Database).query("select 1");
      // Warm-up: connections made, plans cached (PL/pgSQL may switch to a generic plan after five calls).
      if (round < 20) continue;
      times[name]?.push(t1 - t0);
      reads[name]?.push(t2 - t1);
      hops[name]?.push(performance.now() - t2);
    }
  }
  const figures = (t: number[]) => `p50 ${median(t).toFixed(3)} ms, p90 ${quantile(t, 0.9).toFixed(3)} ms`;
  for (const [name, t] of Object.entries(times)) {
    const read = figures(reads[name] ?? []);
    console.log(
      `${name.padEnd(20)} start: ${figures(t)} | read events: ${read} | select 1: ${figures(hops[name] ?? [])}`,
    );
  }
  for (const db of Object.values(ways)) await db.close();
} finally {
  await bouncer.stop();
  await store.drop();
}

/** The database with the statements' pooled forms ignored: every statement sent unnamed, as it is. */
function unnamed(db: Database): Database {
  return new Proxy(db, {
    get(target, key) {
      if (key === "query") {
        return (sql: string, values?: unknown[], options?: { pooledSql?: string }) => {
          const { pooledSql: _ignored, ...rest } = options ?? {};
          return target.query(sql, values as unknown[], rest);
        };
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
