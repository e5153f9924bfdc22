// Bytes written per task by postgres-store: N tasks, each started with a first message of M bytes and
// given E status updates and a final one through the group-commit writer, as the runtime writes them.
// Measured two ways, on PGlite (a WAL of its own, so the LSN delta is this bench's alone) and on the
// PostgreSQL in POSTGRES_URL (a schema of its own; the LSN delta there includes anything else the cluster
// wrote meanwhile, so run it on a quiet server): the WAL generated, and the growth of tasks + task_events
// with their TOAST and indexes (autovacuum off for the run, so dead row versions stay counted).
//
//   node bench/retention/bytes-per-task.ts [--tasks 200] [--events 10] [--message-bytes 16000] [--postgres]
import { randomBytes, randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";

type Task = import("../../packages/a2a-core/dist/index.js").Task;
type Database = import("../../packages/postgres-store/dist/index.js").Database;
// The built package, as the reference server loads it (run `pnpm build` after changing the store).
const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
const { createPostgresStores, migrate, openDatabase } =
  require("@a2a-partner/postgres-store") as typeof import("../../packages/postgres-store/dist/index.js");

const { values } = parseArgs({
  options: {
    tasks: { type: "string", default: "200" },
    events: { type: "string", default: "10" },
    "message-bytes": { type: "string", default: "16000" },
    postgres: { type: "boolean", default: false },
  },
});
const TASKS = Number(values.tasks);
const EVENTS = Number(values.events);
const MESSAGE_BYTES = Number(values["message-bytes"]);
const POSTGRES_URL = process.env.POSTGRES_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function measure(db: Database): Promise<{ wal: number; relations: number }> {
  const stores = createPostgresStores(db);
  const workspaceId = randomUUID();
  const size = async () => {
    const { rows } = await db.query<{ lsn: string; bytes: string }>(
      `select pg_current_wal_insert_lsn()::text as lsn,
              (pg_total_relation_size('tasks') + pg_total_relation_size('task_events'))::text as bytes`,
    );
    return rows[0] as { lsn: string; bytes: string };
  };
  const before = await size();
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  await Promise.all(
    Array.from({ length: TASKS }, async () => {
      const id = randomUUID();
      let task: Task = {
        id,
        contextId: randomUUID(),
        status: { state: "TASK_STATE_SUBMITTED", timestamp: at(0) },
        history: [
          {
            role: "ROLE_USER",
            messageId: randomUUID(),
            // Random text: a real message compresses far less than repeated letters (TOAST compresses).
            parts: [{ text: randomBytes(MESSAGE_BYTES).toString("base64").slice(0, MESSAGE_BYTES) }],
          },
        ],
        artifacts: [],
      } as Task;
      await stores.idempotency.createOrGet(randomUUID(), {
        workspaceId,
        task,
        createdAt: at(0),
        lease: { owner: "bench", durationMs: 60_000 },
      });
      for (let seq = 2; seq <= EVENTS + 2; seq++) {
        const final = seq === EVENTS + 2;
        const status = {
          state: final ? "TASK_STATE_COMPLETED" : "TASK_STATE_WORKING",
          timestamp: at(seq),
        } as Task["status"];
        const result = { statusUpdate: { taskId: id, contextId: task.contextId, status } };
        task = { ...task, status };
        const ok = await stores.events.appendNumbered({
          taskId: id,
          prevSeq: seq - 1,
          events: [{ taskId: id, seq, event: final ? "finished" : "update", result, createdAt: at(seq) }],
          snapshot: task,
        });
        if (!ok) throw new Error(`append ${seq} of ${id} refused`);
      }
    }),
  );
  const after = await size();
  await stores.events.close();
  return { wal: lsnBytes(after.lsn) - lsnBytes(before.lsn), relations: Number(after.bytes) - Number(before.bytes) };
}

function lsnBytes(lsn: string): number {
  const [high, low] = lsn.split("/").map((part) => Number.parseInt(part, 16));
  return (high ?? 0) * 2 ** 32 + (low ?? 0);
}

async function run(kind: "pglite" | "postgres"): Promise<void> {
  let db: Database;
  let drop = async () => {};
  if (kind === "pglite") {
    db = await openDatabase({ dataDir: "memory://" });
    drop = () => db.close();
  } else {
    const schema = `bench_bytes_${randomUUID().replaceAll("-", "")}`;
    const admin = await openDatabase({ url: POSTGRES_URL });
    await admin.exec(`create schema ${schema}`);
    db = await openDatabase({ url: POSTGRES_URL, pool: { max: 4, options: `-c search_path=${schema}` } });
    drop = async () => {
      await db.close();
      await admin.exec(`drop schema if exists ${schema} cascade`);
      await admin.close();
    };
  }
  try {
    await migrate(db);
    await db.exec(
      "alter table tasks set (autovacuum_enabled = false, toast.autovacuum_enabled = false);" +
        "alter table task_events set (autovacuum_enabled = false, toast.autovacuum_enabled = false)",
    );
    const { wal, relations } = await measure(db);
    const perTask = (bytes: number) => Math.round(bytes / TASKS);
    console.log(
      JSON.stringify({
        kind,
        tasks: TASKS,
        eventsPerTask: EVENTS + 2,
        messageBytes: MESSAGE_BYTES,
        walBytesPerTask: perTask(wal),
        tableBytesPerTask: perTask(relations),
      }),
    );
  } finally {
    await drop();
  }
}

await run("pglite");
if (values.postgres) await run("postgres");
