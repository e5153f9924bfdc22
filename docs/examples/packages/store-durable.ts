import type { Task, TaskUpdateResult } from "@a2a-partner/a2a-core";
import { WORKSPACE_ID as workspaceId } from "../context.ts";

// What the fragment takes as given: a task to store and a progress update of it.
const id = crypto.randomUUID();
const task: Task = {
  id,
  contextId: crypto.randomUUID(),
  status: { state: "TASK_STATE_WORKING", timestamp: new Date().toISOString() },
  artifacts: [],
  history: [],
  metadata: { storeId: "store-001" },
};
const progress: TaskUpdateResult = {
  statusUpdate: {
    taskId: id,
    contextId: task.contextId,
    status: { state: "TASK_STATE_WORKING", timestamp: new Date().toISOString() },
  },
};

// #region snippet
import { createPostgresStores, migrate, openDatabase } from "@a2a-partner/postgres-store";

// DATABASE_URL set: PostgreSQL; unset: PGlite with its data under ./.data/pglite.
const db = await openDatabase({ url: process.env.DATABASE_URL, pool: { max: 10 } });
await migrate(db); // the store's tables; safe when several instances start at once
const { tasks, events, idempotency } = createPostgresStores(db);

// workspaceId: your caller's workspace (a UUID); task: the A2A `Task` to store (a2a-core's shape, its
// id a UUID); progress: a `TaskUpdateResult` (a status or artifact update of that task).
// Every task start: the new task, or the one "msg-1" already names (`undefined` as the key: always new).
const { record, created } = await idempotency.createOrGet("msg-1", {
  workspaceId,
  task,
  lease: { owner: "instance-a", durationMs: 30_000 }, // from the database's clock
  createdAt: new Date().toISOString(),
});
// Told of every later event of the task, from any instance (NOTIFY), with its newest seq.
const stop = events.watch(record.task.id, (newestSeq) => console.log("task moved to", newestSeq));
await events.append(record.task.id, { event: "update", result: progress, createdAt: new Date().toISOString() });
stop();
await events.close();
await db.close();
// #endregion snippet
export { created, tasks };
