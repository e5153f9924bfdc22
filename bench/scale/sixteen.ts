/**
 * N reference-server instances on one PostgreSQL behind a real PgBouncer in transaction mode
 * (docs/operations.md, "Past one database box"): the typed client's streaming starts spread over them by a
 * round-robin "load balancer" in the client's fetch, one instance SIGKILLed half-way. Reports tasks/s, the
 * first event (pooled instances against one direct instance, same run), PostgreSQL's connections on the
 * database, and checks every stream: each event id once, in order, ending `finished`; every start one task.
 *
 *   node bench/scale/sixteen.ts --instances 16 --seconds 20 --concurrency 32
 *
 * Not in CI: a bench, for a quiet host. See bench/NOTES.md ("Sixteen instances behind PgBouncer").
 */
import { execFileSync } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import {
  createPostgresStore,
  type ServerProcess,
  seedWithCli,
  startServerProcess,
} from "../../examples/server/test/support/server-process.ts";
import { A2AClient } from "../../packages/a2a-client/dist/index.js";
import { startPgBouncer } from "../../test/support/pgbouncer.ts";
import { benchFlags } from "../flags.ts";
import { median, quantile } from "../metrics/stats.ts";

const flags = benchFlags({ instances: "16", seconds: "20", concurrency: "32", pool: "40", step: "20" });
const N = Number(flags.instances);
const SECONDS = Number(flags.seconds);
const CONCURRENCY = Number(flags.concurrency);

const store = await createPostgresStore();
const seeded = await seedWithCli(store.env);
const database = new URL(store.url).pathname.slice(1);
const bouncer = await startPgBouncer({
  databases: { pooled: `host=127.0.0.1 port=5432 dbname=${database}` },
  poolSize: Number(flags.pool),
  maxClientConnections: 2_000,
});
const common = { ROBOT_STEP_MS: flags.step, TASK_LEASE_MS: "3000", LOG_LEVEL: "info", RATE_LIMIT_PER_SECOND: "0" };
const pooledEnv = {
  ...common,
  DATABASE_URL: bouncer.url("pooled"),
  DATABASE_LISTEN_URL: store.url,
  DATABASE_POOLER: "transaction",
};
const servers: ServerProcess[] = [];
try {
  const started = performance.now();
  // A few at a time: sixteen cold starts at once on two cores time out.
  for (let i = 0; i < N; i += 4) {
    const batch = Math.min(4, N - i);
    servers.push(
      ...(await Promise.all(
        Array.from({ length: batch }, () => startServerProcess(pooledEnv, { startTimeoutMs: 180_000 })),
      )),
    );
  }
  const direct = await startServerProcess({ ...common, DATABASE_URL: store.url }, { startTimeoutMs: 180_000 });
  console.log(`${N} pooled instances + 1 direct up in ${((performance.now() - started) / 1000).toFixed(1)} s`);

  // The load balancer: each request to the next live instance.
  const live = servers.map((s) => s.url);
  let next = 0;
  const balanced: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const target = new URL(live[next++ % live.length] as string);
    url.host = target.host;
    return fetch(url, init);
  };
  const client = new A2AClient({ baseUrl: servers[0]?.url as string, token: seeded.partnerToken, fetch: balanced });

  // First event, pooled instances and the direct one alternately, no other load.
  const firstEvent = async (c: A2AClient) => {
    const t0 = performance.now();
    const stream = c.sendStreamingMessage({ text: "Count aisle 1", storeId: seeded.storeId });
    let first = 0;
    for await (const _ of stream) if (first === 0) first = performance.now() - t0;
    return first;
  };
  const directClient = new A2AClient({ baseUrl: direct.url, token: seeded.partnerToken });
  const pooledFirst: number[] = [];
  const directFirst: number[] = [];
  // The first starts on each instance warm its code up: one round on every instance is left out.
  for (let i = 0; i < N + 12; i++) {
    const pooled = await firstEvent(client);
    const straight = await firstEvent(directClient);
    if (i < N) continue;
    pooledFirst.push(pooled);
    directFirst.push(straight);
  }
  await direct.kill("SIGTERM");
  await directClient.close();

  // Sustained load with one SIGKILL half-way.
  const connections: number[] = [];
  const listens: number[] = [];
  const sampler = setInterval(() => {
    const out = execFileSync(
      "psql",
      [
        store.url,
        "-XAtc",
        `select count(*), count(*) filter (where query ilike 'listen %' or query = 'select 1')
           from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
      ],
      { encoding: "utf8" },
    ).trim();
    const [all, listening] = out.split("|").map(Number);
    connections.push(all as number);
    listens.push(listening as number);
  }, 1_000);
  const messageIds: string[] = [];
  const problems: string[] = [];
  const firsts: number[] = [];
  let completed = 0;
  let failed = 0;
  const end = performance.now() + SECONDS * 1000;
  let killedAt = 0;
  const killer = (async () => {
    if (N < 2) return; // no instance left to take over
    await sleep((SECONDS * 1000) / 2);
    const victim = servers[N - 1] as ServerProcess;
    live.splice(live.indexOf(victim.url), 1);
    killedAt = performance.now();
    await victim.kill("SIGKILL");
  })();
  const worker = async (w: number) => {
    for (let i = 0; performance.now() < end; i++) {
      const messageId = `scale-${w}-${i}-${crypto.randomUUID()}`;
      messageIds.push(messageId);
      const t0 = performance.now();
      let last = 0;
      let first = 0;
      try {
        const stream = client.sendStreamingMessage({ text: "Restock aisle 3", storeId: seeded.storeId, messageId });
        for await (const event of stream) {
          if (first === 0) first = performance.now() - t0;
          const id = Number(event.eventId);
          if (!(id > last)) problems.push(`${messageId}: event ${id} after ${last}`);
          last = id;
          if (event.type === "finished") {
            if (event.state === "completed") completed++;
            else failed++;
          }
        }
        firsts.push(first);
      } catch (error) {
        problems.push(`${messageId}: ${(error as Error).message}`);
      }
    }
  };
  const loadStart = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
  const loadSeconds = (performance.now() - loadStart) / 1000;
  clearInterval(sampler);
  await killer;
  await client.close();

  // Every start is one task, and every task ended.
  const tasks = execFileSync(
    "psql",
    [
      store.url,
      "-XAtc",
      `select count(*), count(distinct message_id), count(*) filter (where not terminal), count(*) filter (where state = 'failed') from tasks
         where message_id like 'scale-%'`,
    ],
    { encoding: "utf8" },
  )
    .trim()
    .split("|")
    .map(Number);
  const p = (v: number[], q: number) => quantile(v, q).toFixed(1);
  console.log(
    JSON.stringify(
      {
        instances: N,
        pgbouncerPool: Number(flags.pool),
        robotStepMs: Number(flags.step),
        loadSeconds: Number(loadSeconds.toFixed(1)),
        starts: messageIds.length,
        completed,
        // Ended otherwise: the tasks the SIGKILLed instance ran end `failed` (orphaned) once their lease lapses.
        failedOrOrphaned: failed,
        tasksPerSecond: Number((completed / loadSeconds).toFixed(1)),
        firstEventMs: { p50: p(firsts, 0.5), p99: p(firsts, 0.99) },
        firstEventIdleMs: { pooled: median(pooledFirst).toFixed(1), direct: median(directFirst).toFixed(1) },
        postgresConnections: { max: Math.max(...connections), listenMax: Math.max(...listens) },
        killedAtSecond: killedAt === 0 ? null : Number(((killedAt - loadStart) / 1000).toFixed(1)),
        tasksInDatabase: tasks[0],
        lost: messageIds.length - (tasks[1] as number),
        doubled: (tasks[0] as number) - (tasks[1] as number),
        notEnded: tasks[2],
        endedFailedInDatabase: tasks[3],
        problems: problems.slice(0, 5),
        problemCount: problems.length,
      },
      null,
      2,
    ),
  );
} finally {
  for (const s of servers) await s.kill("SIGKILL").catch(() => undefined);
  await bouncer.stop();
  await store.drop();
}
