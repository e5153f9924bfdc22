/**
 * Do concurrent writers of the metrics records wait for each other? Several server instances on one
 * PostgreSQL each run a group-commit writer; their robots write an execution, then per step a node
 * execution and telemetry (and now and then an alert) in the same workspace and the current hour, then
 * mark the execution completed. With the first design's triggers every commit upserted the same
 * current-hour rollup rows and held them until it committed, so the instances serialized; with the shipped
 * ones the triggers append deltas and a compaction folds them every few seconds.
 *
 * This runs that write pattern (the fleet's, through the real GroupCommitWriter, with no sleeps) with one
 * instance and with several, against two fresh databases: one with the upsert triggers swapped in
 * (upsert-rollups.sql) and one as migrated (deltas, with each instance folding every 5 s as the reference
 * server does). It prints tasks/s, the scale-out ratio, and how often the writers' sessions were seen
 * waiting on a lock (pg_stat_activity, sampled every 50 ms).
 *
 *   node bench/metrics/contention.ts [--seconds 10] [--tasks 32] [--instances 2] [--rounds 3] [--database NAME]
 *
 * --tasks: concurrent tasks per instance. DATABASE_URL_TEST names the server (default
 * postgres://postgres@127.0.0.1:5432/test); the databases `<NAME>_upserts` and `<NAME>_deltas`
 * (default NAME: a2a_contention) are created and dropped.
 */
import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { migrateReferenceSchema } from "@a2a-partner/example-server/migrations";
import { benchFlags } from "../flags.ts";
import { createWorkspace, databaseUrl, dropDatabase, metrics, recreateDatabase, store } from "./setup.ts";
import { median } from "./stats.ts";

const args = benchFlags({ seconds: "10", tasks: "32", instances: "2", rounds: "3", database: "a2a_contention" });
const seconds = Number(args.seconds);
const tasksPerInstance = Number(args.tasks);
const instances = Number(args.instances);
const rounds = Number(args.rounds);
if (![seconds, tasksPerInstance, instances, rounds].every((n) => Number.isInteger(n) && n >= 1) || instances < 2) {
  throw new Error("--seconds, --tasks and --rounds must be positive integers, --instances at least 2");
}
const serverUrl = process.env.DATABASE_URL_TEST ?? "postgres://postgres@127.0.0.1:5432/test";
const STEPS = 4;
const EVENT_TYPES = ["robot.moved", "robot.picked", "battery.level"];

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

interface Variant {
  name: "upserts" | "deltas";
  database: string;
  workspaceId: string;
  workflowIds: string[];
}

/** Swaps the shipped delta triggers for the first design's upserts into the rollups. */
const UPSERT_ROLLUPS = new URL("./upsert-rollups.sql", import.meta.url);

async function prepare(name: Variant["name"]): Promise<Variant> {
  const database = `${args.database}_${name}`;
  await recreateDatabase(serverUrl, database);
  const db = await store.openDatabase({ url: databaseUrl(serverUrl, database), pool: { max: 1 } });
  try {
    await migrateReferenceSchema(db);
    if (name === "upserts") await db.exec(await readFile(UPSERT_ROLLUPS, "utf8"));
    const workspaceId = await createWorkspace(db, "contention");
    const { rows } = await db.query<{ id: string }>(
      "insert into workflows (workspace_id, name) select $1, 'workflow-' || g from generate_series(1, 5) g returning id",
      [workspaceId],
    );
    return { name, database, workspaceId, workflowIds: rows.map((r) => r.id) };
  } finally {
    await db.close();
  }
}

/**
 * One task as the fleet writes it, through one instance's group-commit writer: the execution rides with
 * the first step's records (the writer commits in order), each step a node execution and telemetry (and
 * now and then an alert), then the execution is marked completed.
 */
async function runTask(writer: InstanceType<typeof store.GroupCommitWriter>, v: Variant, n: number): Promise<void> {
  const id = randomUUID();
  const workflowId = v.workflowIds[n % v.workflowIds.length] as string;
  const ws = v.workspaceId;
  let started: Promise<void> | undefined = writer.insertRows(
    "workflow_executions",
    ["id", "workspace_id", "workflow_id", "status", "started_at"],
    [{ id, workspace_id: ws, workflow_id: workflowId, status: "running", started_at: new Date() }],
  );
  for (let step = 0; step < STEPS; step++) {
    const at = new Date();
    const records = [
      writer.insertRows(
        "workflow_node_executions",
        ["workspace_id", "workflow_execution_id", "workflow_id", "node_name", "status", "started_at", "finished_at"],
        [
          {
            workspace_id: ws,
            workflow_execution_id: id,
            workflow_id: workflowId,
            node_name: `node-${step}`,
            status: "completed",
            started_at: at,
            finished_at: at,
          },
        ],
      ),
      writer.insertRows(
        "telemetry_events",
        ["workspace_id", "event_type", "payload", "occurred_at"],
        [EVENT_TYPES[step % 3], "battery.level"].map((type) => ({
          workspace_id: ws,
          event_type: type,
          payload: { x: step },
          occurred_at: at,
        })),
      ),
    ];
    if ((n + step) % 10 === 0) {
      records.push(
        writer.insertRows(
          "alerts",
          ["workspace_id", "alert_type", "occurred_at"],
          [{ workspace_id: ws, alert_type: "obstacle_detected", occurred_at: at }],
        ),
      );
    }
    await Promise.all([...(started ? [started] : []), ...records]);
    started = undefined;
  }
  await writer.updateRows(
    "workflow_executions",
    "id",
    ["status", "finished_at"],
    [{ id, status: "completed", finished_at: new Date() }],
  );
}

interface Result {
  variant: Variant["name"];
  instances: number;
  tasksPerSecond: number;
  /** Share of the writers' samples in pg_stat_activity waiting on a lock. */
  lockWaitShare: number;
}

/**
 * One instance, in a worker thread of its own (instances are processes of their own: one event loop for
 * all of them would measure Node, not PostgreSQL): its group-commit writer, `tasksPerInstance` concurrent
 * tasks until the deadline, and (deltas) a fold every 5 s like the reference server's. Returns the tasks
 * completed.
 */
async function runInstance(v: Variant, instance: number, startAt: number, deadline: number): Promise<number> {
  // One connection: the writer's, lent to the fold on its turn.
  const db = await store.openDatabase({ url: databaseUrl(serverUrl, v.database), pool: { max: 1 } });
  await db.query("select 1");
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, startAt - Date.now())));
  const writer = new store.GroupCommitWriter(db);
  const fold = v.name === "deltas" ? setInterval(() => void metrics.compactMetricsRollups(db), 5000) : undefined;
  let done = 0;
  try {
    await Promise.all(
      Array.from({ length: tasksPerInstance }, async (_, t) => {
        for (let n = instance * 1_000_003 + t; Date.now() < deadline; n += tasksPerInstance) {
          await runTask(writer, v, n);
          done++;
        }
      }),
    );
  } finally {
    clearInterval(fold);
    await db.close();
  }
  return done;
}

function inWorker(v: Variant, instance: number, startAt: number, deadline: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), {
      argv: process.argv.slice(2),
      workerData: { v, instance, startAt, deadline },
    });
    worker.once("message", (done: number) => resolve(done));
    worker.once("error", reject);
    worker.once("exit", (code) => {
      if (code !== 0) reject(new Error(`instance ${instance} exited with ${code}`));
    });
  });
}

async function measure(v: Variant, instanceCount: number): Promise<Result> {
  const monitor = await store.openDatabase({ url: databaseUrl(serverUrl, v.database), pool: { max: 1 } });
  const startAt = Date.now() + 2_000; // the workers start, connect, then all write from this instant
  let samples = 0;
  let lockWaits = 0;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const { rows } = await monitor.query<{ writers: number; waiting: number }>(
        `select count(*)::int as writers, count(*) filter (where wait_event_type = 'Lock')::int as waiting
         from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
           and backend_type = 'client backend' and state <> 'idle'`,
      );
      samples += rows[0]?.writers ?? 0;
      lockWaits += rows[0]?.waiting ?? 0;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  try {
    const deadline = startAt + seconds * 1000;
    const counts = await Promise.all(
      Array.from({ length: instanceCount }, (_, i) => inWorker(v, i, startAt, deadline)),
    );
    return {
      variant: v.name,
      instances: instanceCount,
      tasksPerSecond: counts.reduce((a, b) => a + b, 0) / seconds,
      lockWaitShare: samples > 0 ? lockWaits / samples : 0,
    };
  } finally {
    sampling = false;
    await sampler;
    await monitor.close();
  }
}

async function main(): Promise<void> {
  const variants = [await prepare("upserts"), await prepare("deltas")];
  const results: Result[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      // Alternate the order, so neither variant always runs on a warmer (or busier) machine.
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        for (const count of [1, instances]) {
          const result = await measure(v, count);
          results.push(result);
          log(
            `round ${round + 1}: ${v.name}, ${count} instance(s): ${result.tasksPerSecond.toFixed(0)} tasks/s, ` +
              `lock waits in ${(result.lockWaitShare * 100).toFixed(0)} % of writer samples`,
          );
        }
      }
    }
    // Everything written is still counted exactly, folded or not (the upsert variant has no deltas to read).
    for (const v of variants.filter((variant) => variant.name === "deltas")) {
      const db = await store.openDatabase({ url: databaseUrl(serverUrl, v.database), pool: { max: 1 } });
      try {
        const w = { start: null, end: null };
        const q = metrics.buildEventMetricsQueries(v.workspaceId, w);
        const raw = metrics.buildRawEventMetricsQueries(v.workspaceId, w);
        const [a, b] = [await db.query(q.text, q.values), await db.query(raw.text, raw.values)];
        const shape = (rows: unknown[]) => JSON.stringify(metrics.shapeEventMetrics(v.workspaceId, w, rows as never));
        if (shape(a.rows) !== shape(b.rows)) throw new Error(`${v.name}: the metrics answer differs from a raw count`);
      } finally {
        await db.close();
      }
    }
  } finally {
    for (const v of variants) await dropDatabase(serverUrl, v.database);
  }

  const lines = [
    "",
    `Metrics writers, ${tasksPerInstance} concurrent tasks per instance (${STEPS} steps each, no sleeps), ${seconds} s per run, ${rounds} round(s); medians over rounds:`,
    "",
    "| triggers | 1 instance (tasks/s) | lock waits | " +
      `${instances} instances (tasks/s) | lock waits | ${instances} ÷ 1 |`,
    "|---|---:|---:|---:|---:|---:|",
  ];
  for (const name of ["upserts", "deltas"] as const) {
    const pick = (count: number) => results.filter((r) => r.variant === name && r.instances === count);
    const med = (xs: number[]) => median(xs);
    const one = med(pick(1).map((r) => r.tasksPerSecond));
    const many = med(pick(instances).map((r) => r.tasksPerSecond));
    const pct = (count: number) => `${(med(pick(count).map((r) => r.lockWaitShare)) * 100).toFixed(0)} %`;
    lines.push(
      `| ${name === "upserts" ? "upserts" : "deltas"} | ${one.toFixed(0)} | ${pct(1)} | ${many.toFixed(0)} | ` +
        `${pct(instances)} | ${(many / one).toFixed(2)}× |`,
    );
  }
  process.stdout.write(`${lines.join("\n")}\n`);
}

if (isMainThread) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  });
} else {
  const { v, instance, startAt, deadline } = workerData as {
    v: Variant;
    instance: number;
    startAt: number;
    deadline: number;
  };
  void runInstance(v, instance, startAt, deadline).then((done) => parentPort?.postMessage(done));
}
