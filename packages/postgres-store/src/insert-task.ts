import { isTerminalState, type NewTask, type TaskRecord } from "@a2a-partner/a2a-core";
import type { Queryable } from "./database.js";
import { isUuid, sqlTimestamp, TASK_COLUMNS, type TaskRow, toTaskRecord } from "./rows.js";

const INSERT_TASK = `insert into tasks
  (id, workspace_id, context_id, message_id, snapshot, state, terminal, last_seq, lease_owner, lease_expires_at,
   created_at, updated_at)
  values ($1, $2, $3, $4, $5::jsonb, $6, $7, 1, $8, $9::timestamptz, $10::timestamptz, $10::timestamptz)`;

/**
 * Inserts a task and its seq-1 `task` event on `tx` (the caller's transaction makes the pair atomic).
 * With a `messageId`, a task that already holds (workspace, messageId) wins: nothing is written and the
 * result is undefined; the unique constraint decides, so this holds across processes too.
 */
export async function insertTask(
  tx: Queryable,
  input: NewTask,
  messageId: string | undefined,
): Promise<TaskRecord | undefined> {
  const { task } = input;
  if (!isUuid(task.id)) throw new TypeError("task.id must be a UUID");
  if (!isUuid(input.workspaceId)) throw new TypeError("workspaceId must be a UUID");
  const createdAt = sqlTimestamp(input.createdAt, "createdAt");
  const expiresAt = sqlTimestamp(input.lease.expiresAt, "lease.expiresAt");
  const snapshot = JSON.stringify(task);
  const sql =
    messageId === undefined
      ? `${INSERT_TASK} returning ${TASK_COLUMNS}`
      : `${INSERT_TASK} on conflict (workspace_id, message_id) do nothing returning ${TASK_COLUMNS}`;
  const inserted = await tx.query<TaskRow>(sql, [
    task.id,
    input.workspaceId,
    task.contextId,
    messageId ?? null,
    snapshot,
    task.status.state,
    isTerminalState(task.status.state),
    input.lease.owner,
    expiresAt,
    createdAt,
  ]);
  const row = inserted.rows[0];
  if (!row) return undefined;
  await tx.query(
    "insert into task_events (task_id, seq, event, result, created_at) values ($1, 1, 'task', $2::jsonb, $3::timestamptz)",
    [task.id, snapshot, createdAt],
  );
  return toTaskRecord(row);
}
