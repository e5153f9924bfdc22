/**
 * The floor under a durable server, as a server: the least a server can do that sends each event only
 * once it is durable on PostgreSQL (or on the embedded store, below). Bare node:http, one pg connection, no framework, no checks, no auth,
 * no idempotency. Each POST (the SDK's dialect, `SendStreamingMessage`) commits one row of two JSON
 * documents (the task and its first event, the shape of `commit-floor.ts`) and then writes the `task`
 * frame; then, as the SDK's bench agent does, a status per step every STEP_MS, each committed before its
 * frame, and the `completed` status, which ends the stream. Every commit is a group commit: what waits
 * when one returns goes in the next, one statement (under sequential starts, one row each).
 *
 * `commit-floor.ts` adds a commit measured back to back on one connection to the SDK's first event; this
 * server takes that commit where a real server meets it: after the previous task's last frame, with the
 * backend, the server and the client each woken in turn, and the task's next commits right behind its
 * first frame. Its first event is what `ours` would read if everything it does but the commit took no time.
 *
 * With DATA_DIR instead of DATABASE_URL it commits to the embedded store, opened as the reference server
 * opens it (`openDatabase`: PGlite in a worker thread): the floor under a durable server on the embedded
 * store (`floor-durable-embedded`).
 *
 * Env: PORT (0 = ephemeral), DATABASE_URL (a database of its own: the table is created in it) or DATA_DIR
 * (a PGlite directory), STEP_MS (default 400), STEPS (default 5). Logs
 * `{"msg":"bench server listening","url":…}` on stderr.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { listenAndAnnounce } from "./announce-listening.ts";

/** The one connection the rows go through: a statement, its parameters, and a name to prepare it under. */
interface FloorDatabase {
  query(text: string, values?: unknown[], name?: string): Promise<unknown>;
  close(): Promise<void>;
}

async function openFloorDatabase(): Promise<FloorDatabase> {
  const dataDir = process.env.DATA_DIR;
  if (dataDir) {
    // The embedded store as the server opens it: PGlite in a worker thread (on the server's own thread the
    // first event read the same and tasks/s a quarter: one thread then serves HTTP and runs PostgreSQL).
    const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
    const { openDatabase } = require("@a2a-partner/postgres-store") as typeof import("@a2a-partner/postgres-store");
    const db = await openDatabase({ dataDir });
    return {
      query: (text, values, name) => db.query(text, values ?? [], name ? { name } : undefined),
      close: () => db.close(),
    };
  }
  const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
  const pg = require("pg") as typeof import("pg");
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  return {
    query: (text, values, name) => db.query({ text, values, ...(name ? { name } : {}) }),
    close: () => db.end(),
  };
}

const stepMs = Number(process.env.STEP_MS ?? 400);
const steps = Number(process.env.STEPS ?? 5);
const db = await openFloorDatabase();
await db.query(`create table if not exists floor_events (
  task_id uuid not null, seq int not null, task jsonb not null, event jsonb not null, primary key (task_id, seq))`);
// Every commit goes through one group commit on the one connection: whatever waits when a commit returns
// is the next commit, one multi-row insert (alone, under sequential starts; many tasks' rows under load).
const INSERT = `insert into floor_events select * from jsonb_to_recordset($1::jsonb)
  as r(task_id uuid, seq int, task jsonb, event jsonb)`;
type Row = { task_id: string; seq: number; task: unknown; event: unknown };
let waiting: { row: Row; done: () => void; failed: (error: unknown) => void }[] = [];
let committing = false;

/** Stores one row with the next group commit: the documents are serialised once, with the batch. */
function commit(taskId: string, seq: number, task: unknown, event: unknown): Promise<void> {
  return new Promise((done, failed) => {
    waiting.push({ row: { task_id: taskId, seq, task, event }, done, failed });
    if (!committing) void commitWaiting();
  });
}

async function commitWaiting(): Promise<void> {
  committing = true;
  while (waiting.length > 0) {
    const batch = waiting;
    waiting = [];
    try {
      await db.query(INSERT, [JSON.stringify(batch.map((item) => item.row))], "floor_insert");
      for (const item of batch) item.done();
    } catch (error) {
      for (const item of batch) item.failed(error);
    }
  }
  committing = false;
}

function frame(res: ServerResponse, requestId: unknown, result: unknown): void {
  res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id: requestId, result })}\n\n`);
}

async function stream(req: IncomingMessage, res: ServerResponse): Promise<void> {
  let body = "";
  for await (const chunk of req) body += chunk;
  const request = JSON.parse(body) as {
    id?: unknown;
    method?: unknown;
    params?: { message?: unknown; metadata?: unknown };
  };
  if (request.method !== "SendStreamingMessage") {
    // Starts only: GetTask or a subscription would need a store to read from.
    const error = { code: -32601, message: "the durable floor serves SendStreamingMessage only" };
    res
      .writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ jsonrpc: "2.0", id: request.id, error }));
    return;
  }
  const taskId = randomUUID();
  const contextId = randomUUID();
  const working = (timestamp: string) => ({ state: "TASK_STATE_WORKING", timestamp });
  const task = {
    id: taskId,
    contextId,
    status: working(new Date().toISOString()),
    artifacts: [],
    history: [request.params?.message],
    metadata: request.params?.metadata,
  };
  await commit(taskId, 1, task, task);
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  frame(res, request.id, { task });
  for (let step = 1; step <= steps; step++) {
    await new Promise((resolve) => setTimeout(resolve, stepMs));
    const status = { ...working(new Date().toISOString()), message: { text: `step ${step} of ${steps}` } };
    const update = { statusUpdate: { taskId, contextId, status, metadata: { step, steps } } };
    await commit(taskId, step + 1, task, update);
    frame(res, request.id, update);
  }
  const completed = { statusUpdate: { taskId, contextId, status: { state: "TASK_STATE_COMPLETED" }, metadata: {} } };
  await commit(taskId, steps + 2, task, completed);
  frame(res, request.id, completed);
  res.end();
}

const server = createServer((req, res) => {
  if (req.method !== "POST") {
    res.writeHead(404).end();
    return;
  }
  stream(req, res).catch((error: unknown) => {
    process.stderr.write(`${JSON.stringify({ msg: "stream failed", error: String(error) })}\n`);
    res.destroy();
  });
});
server.keepAliveTimeout = 5_000;
listenAndAnnounce(server, Number(process.env.PORT ?? 0));
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void db.close().finally(() => process.exit(0));
});
