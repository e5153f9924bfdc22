/**
 * What push notifications cost the event hot path (issue 35): the group-commit writer under the runtime's
 * write pattern (C running tasks, each storing its next event as soon as the previous one is durable, a
 * new task every 20 events), in alternating slices, against
 *   - base:      the store built from the commit before push (`--base`: its dist/index.js, next to its
 *                migrations/ as in the package), on a database migrated by it;
 *   - new:       this checkout's store, no task with a push config (the statement inserts no delivery);
 *   - new+push:  this checkout's store, every task started with one inline config (one delivery per event;
 *                no dispatcher, so they pile up: a worst case for the inserts' index).
 * Each target has a database of its own: on PostgreSQL (DATABASE_URL_TEST, created and dropped), or an
 * in-memory PGlite on its worker thread. Prints, per target, events/s and the latency of one append (p50,
 * p99) pooled over the rounds, and CPU per event: this process (PGlite's worker included) and, on
 * PostgreSQL, the database backends serving the target's pool (/proc, same host).
 *
 *   pnpm --filter @a2a-partner/postgres-store build
 *   node bench/push/hot-path.ts --base <dir>/dist/index.js [--store postgres|pglite] [--rounds 6] [--slice 5]
 *     [--tasks 32] [--lockstep]
 *
 * To get a base: before changing the store, `pnpm --filter @a2a-partner/postgres-store build` and copy
 * packages/postgres-store/dist and migrations/ to packages/postgres-store/node_modules/.bench-base/ (the
 * default --base; inside node_modules so its imports resolve to this checkout's a2a-core).
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { benchFlags } from "../flags.ts";
import { databaseUrl, dropDatabase, recreateDatabase } from "../metrics/setup.ts";
import { median, quantile } from "../metrics/stats.ts";

type StoreModule = typeof import("../../packages/postgres-store/dist/index.js");
type Database = import("../../packages/postgres-store/dist/index.js").Database;
type Stores = import("../../packages/postgres-store/dist/index.js").PostgresStores;
type Task = import("../../packages/a2a-core/dist/index.js").Task;

const args = benchFlags(
  {
    base: fileURLToPath(
      new URL("../../packages/postgres-store/node_modules/.bench-base/dist/index.js", import.meta.url),
    ),
    store: "postgres",
    rounds: "6",
    slice: "5",
    warmup: "1",
    tasks: "32",
  },
  ["lockstep"],
);
const rounds = Number(args.rounds);
const sliceMs = Number(args.slice) * 1000;
const warmupMs = Number(args.warmup) * 1000;
const concurrency = Number(args.tasks);
const kind = args.store === "pglite" ? "pglite" : "postgres";
const serverUrl = process.env.DATABASE_URL_TEST ?? "postgres://postgres@127.0.0.1:5432/test";
const EVENTS_PER_TASK = 20;

const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
const current = require("@a2a-partner/postgres-store") as StoreModule;
const base = (await import(pathToFileURL(args.base).href)) as StoreModule;

interface Target {
  name: "base" | "new" | "new+push";
  module: StoreModule;
  withPush: boolean;
  db?: Database;
  stores?: Stores;
  database?: string;
  events: number;
  ms: number;
  cpuMs: number;
  backendCpuMs: number;
  latencies: number[];
}

const targets: Target[] = [
  { name: "base", module: base, withPush: false },
  { name: "new", module: current, withPush: false },
  { name: "new+push", module: current, withPush: true },
].map((target) => ({ ...target, events: 0, ms: 0, cpuMs: 0, backendCpuMs: 0, latencies: [] }) as Target);

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function open(target: Target): Promise<void> {
  if (kind === "pglite") {
    target.db = await target.module.openDatabase({ dataDir: "memory://", lock: false });
  } else {
    target.database = `push_hot_path_${target.name.replace("+", "_")}`;
    await recreateDatabase(serverUrl, target.database);
    target.db = await target.module.openDatabase({ url: databaseUrl(serverUrl, target.database), pool: { max: 8 } });
  }
  await target.module.migrate(target.db);
  target.stores = target.module.createPostgresStores(target.db);
}

const workspaceId = randomUUID();
let clock = Date.now();
const at = () => new Date(clock++).toISOString();

function newTask(withPush: boolean) {
  const createdAt = at();
  const id = randomUUID();
  const task: Task = {
    id,
    contextId: randomUUID(),
    status: { state: "TASK_STATE_WORKING", timestamp: createdAt },
    artifacts: [],
    history: [{ messageId: randomUUID(), role: "ROLE_USER", parts: [{ text: "restock" }] }],
  };
  const pushConfigs = withPush
    ? [{ id, taskId: id, url: "https://receiver.example/hook", version: "1.0" as const, createdAt }]
    : undefined;
  return { workspaceId, task, lease: { owner: "bench", durationMs: 3_600_000 }, createdAt, pushConfigs };
}

/** One runner: its task's next event as soon as the previous one is durable, a new task every 20. */
async function runner(target: Target, until: number, record: boolean): Promise<void> {
  while (Date.now() < until) {
    let task = (await (target.stores as Stores).tasks.create(newTask(target.withPush))).task;
    for (let seq = 2; seq <= EVENTS_PER_TASK && Date.now() < until; seq++) {
      task = await appendNext(target, task, seq, record);
    }
  }
}

/**
 * `--lockstep`: all runners move together, so every commit is one batch of exactly `--tasks` appends (the
 * statement's own cost, without the scheduling noise of runners that drift apart).
 */
async function lockstep(target: Target, until: number, record: boolean): Promise<void> {
  const stores = target.stores as Stores;
  while (Date.now() < until) {
    let tasks = await Promise.all(
      Array.from({ length: concurrency }, async () => (await stores.tasks.create(newTask(target.withPush))).task),
    );
    for (let seq = 2; seq <= EVENTS_PER_TASK && Date.now() < until; seq++) {
      tasks = await Promise.all(tasks.map((task) => appendNext(target, task, seq, record)));
    }
  }
}

const load = args.switches.has("lockstep")
  ? (target: Target, until: number, record: boolean) => lockstep(target, until, record)
  : (target: Target, until: number, record: boolean) =>
      Promise.all(Array.from({ length: concurrency }, () => runner(target, until, record))).then(() => undefined);

/** The task's event `seq` (a status update), stored through the group commit; the task after it. */
async function appendNext(target: Target, task: Task, seq: number, record: boolean): Promise<Task> {
  const timestamp = at();
  const status = { state: "TASK_STATE_WORKING" as const, timestamp };
  const result = { statusUpdate: { taskId: task.id, contextId: task.contextId, status } };
  const snapshot: Task = { ...task, status };
  const event = { taskId: task.id, seq, event: "update" as const, result, createdAt: timestamp };
  const started = performance.now();
  const stored = await (target.stores as Stores).events.appendNumbered({
    taskId: task.id,
    prevSeq: seq - 1,
    events: [event],
    snapshot,
  });
  if (!stored) throw new Error(`append refused for ${task.id} at ${seq}`);
  if (record) {
    target.latencies.push(performance.now() - started);
    target.events++;
  }
  return snapshot;
}

/** CPU time (ms) of the PostgreSQL backends connected to the target's database, from /proc. */
async function backendCpuMs(target: Target): Promise<number> {
  if (kind !== "postgres" || !target.db) return 0;
  const { rows } = await target.db.query<{ pid: number }>(
    "select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
  );
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of the line)
    } catch {
      // A backend that ended meanwhile.
    }
  }
  return ticks * 10; // USER_HZ = 100
}

async function slice(target: Target): Promise<void> {
  // A dispatcher would have delivered (deleted) them: each slice starts from an empty queue.
  if (target.withPush) await target.db?.query("delete from push_deliveries");
  const warmEnd = Date.now() + warmupMs;
  await load(target, warmEnd, false);
  const cpu = process.cpuUsage();
  const backend = await backendCpuMs(target);
  const startedAt = performance.now();
  const end = Date.now() + sliceMs;
  await load(target, end, true);
  target.ms += performance.now() - startedAt;
  const used = process.cpuUsage(cpu);
  target.cpuMs += (used.user + used.system) / 1000;
  target.backendCpuMs += (await backendCpuMs(target)) - backend;
}

for (const target of targets) await open(target);
log(`${kind}: ${rounds} rounds of ${args.slice} s slices, ${concurrency} tasks, targets ${targets.map((t) => t.name)}`);
const perRound: Record<string, number[]> = {};
/** Per round, CPU per event: this process and (PostgreSQL) the target's backends together. */
const cpuPerRound: Record<string, number[]> = {};
for (let round = 0; round < rounds; round++) {
  // Alternate the order each round, so no target always runs on a database the previous one just warmed.
  const order = round % 2 === 0 ? targets : [...targets].reverse();
  for (const target of order) {
    const before = { events: target.events, ms: target.ms, cpu: target.cpuMs, backend: target.backendCpuMs };
    await slice(target);
    const events = target.events - before.events;
    const rate = (events / (target.ms - before.ms)) * 1000;
    const cpu = ((target.cpuMs - before.cpu) / events) * 1000;
    const backend = ((target.backendCpuMs - before.backend) / events) * 1000;
    perRound[target.name] = [...(perRound[target.name] ?? []), rate];
    cpuPerRound[target.name] = [...(cpuPerRound[target.name] ?? []), cpu + backend];
    log(`round ${round + 1} ${target.name}: ${rate.toFixed(0)} events/s, ${(cpu + backend).toFixed(1)} µs CPU/event`);
  }
}

const baseRate = median(perRound.base ?? []);
console.log(`\n${kind}, ${concurrency} tasks, ${rounds} × ${args.slice} s`);
console.log("target     events/s  (median of rounds, vs base)  append p50   p99   CPU/event here  backends");
for (const target of targets) {
  const rate = median(perRound[target.name] ?? []);
  const change = target.name === "base" ? "" : `${((rate / baseRate - 1) * 100).toFixed(1)} %`;
  console.log(
    `${target.name.padEnd(10)} ${rate.toFixed(0).padStart(8)}  ${change.padStart(26)}  ` +
      `${quantile(target.latencies, 0.5).toFixed(2).padStart(9)} ${quantile(target.latencies, 0.99).toFixed(2).padStart(6)}` +
      `  ${((target.cpuMs / target.events) * 1000).toFixed(1).padStart(11)} µs` +
      `  ${kind === "postgres" ? `${((target.backendCpuMs / target.events) * 1000).toFixed(1)} µs` : "-"}`,
  );
}
const baseCpu = median(cpuPerRound.base ?? []);
console.log("CPU per event, this process and the backends (median of rounds, vs base):");
for (const target of targets) {
  const cpu = median(cpuPerRound[target.name] ?? []);
  const change = target.name === "base" ? "" : ` (${((cpu / baseCpu - 1) * 100).toFixed(1)} %)`;
  console.log(`  ${target.name.padEnd(10)} ${cpu.toFixed(1)} µs${change}`);
}
const rounded = (table: Record<string, number[]>) =>
  JSON.stringify(Object.fromEntries(Object.entries(table).map(([k, v]) => [k, v.map(Math.round)])));
console.log(`events/s per round: ${rounded(perRound)}`);
console.log(`CPU µs/event per round: ${rounded(cpuPerRound)}`);

for (const target of targets) {
  await target.stores?.events.close();
  await target.db?.close();
  if (target.database) await dropDatabase(serverUrl, target.database);
}
