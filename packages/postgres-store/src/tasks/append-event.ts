import { applyTaskEvent, isTerminalState, type NewTaskEvent, type StoredTaskEvent } from "@a2a-partner/a2a-core";
import type { MessageV03, TaskV03 } from "@a2a-partner/a2a-core/protocol";
import type { Database } from "../database.js";
import { PUSH_DELIVERIES_CHANNEL } from "../push/push-wakeups.js";
import {
  setStatusAt,
  statusAtOf,
  storedSnapshotSql,
  TASK_EVENT_COLUMNS,
  type TaskEventRow,
  taskOfRow,
  toStoredEvent,
} from "./rows.js";
import { storedEventJson, storedState, storedTaskJson } from "./stored-shapes.js";
import { TASK_EVENTS_CHANNEL } from "./task-events-channel.js";

/**
 * `EventLog.append`: the task's next event for a writer that does not run the task (a cancel, the orphan
 * sweep), in one transaction that holds the task row's lock: the event, the snapshot after it, a push
 * delivery per config of the task (migration 0008), and the NOTIFYs. Undefined when nothing was written
 * (the task had ended, or the orphan end of a task whose lease is live again); `pushed` when deliveries were.
 */
export function appendEvent(
  db: Database,
  taskId: string,
  entry: NewTaskEvent,
  createdAt: string,
): Promise<{ event: StoredTaskEvent; pushed: boolean } | undefined> {
  return db.transaction(async (tx) => {
    // The row lock orders concurrent appends to one task: each sees its predecessor's last_seq.
    const locked = await tx.query<{
      snapshot: TaskV03;
      first_message: MessageV03 | null;
      last_seq: number;
      terminal: boolean;
      lease_live: boolean;
      push_config_ids: string[] | null;
    }>(
      `select snapshot, first_message, last_seq, terminal, coalesce(lease_expires_at >= now(), false) as lease_live,
              push_config_ids
         from tasks where id = $1 for update`,
      [taskId],
    );
    const current = locked.rows[0];
    if (!current) throw new Error(`unknown task ${taskId}`);
    if (current.terminal) return undefined;
    // The orphan sweep read the expired lease without a lock; a renewal may have committed since, and the
    // task is live again. Checked here, under the row lock, so a live task is never ended as an orphan.
    if (current.lease_live && isOrphanEnd(entry)) return undefined;
    const seq = current.last_seq + 1;
    const snapshot = applyTaskEvent(taskOfRow(current.snapshot, current.first_message), entry.result);
    const inserted = await tx.query<TaskEventRow>(
      `insert into task_events (task_id, seq, event, result, created_at)
        values ($1, $2, $3, $4::jsonb, $5::timestamptz)
        returning ${TASK_EVENT_COLUMNS}`,
      [taskId, seq, entry.event, storedEventJson(entry.result), createdAt],
    );
    await tx.query(
      `update tasks t set snapshot = ${storedSnapshotSql("$2::jsonb")}, state = $3, terminal = $4, last_seq = $5, updated_at = now(),
              ${setStatusAt("$6::timestamptz", "$4")}
        where t.id = $1`,
      [
        taskId,
        storedTaskJson(snapshot),
        storedState(snapshot.status.state),
        isTerminalState(snapshot.status.state),
        seq,
        statusAtOf(snapshot),
      ],
    );
    const configIds = current.push_config_ids ?? [];
    if (configIds.length === 0) {
      await tx.query("select pg_notify($1, $2)", [TASK_EVENTS_CHANNEL, `${taskId.toLowerCase()} ${seq}`]);
    } else {
      // A delivery per config of the task, in the same transaction as the event (migration 0008); the row
      // lock held since the first statement keeps the list as it is until the commit.
      await tx.query(
        `with delivered as (
           insert into push_deliveries (task_id, config_id, seq)
           select $3::uuid, c.id, $4::integer from jsonb_array_elements_text($5::jsonb) as c(id)
         )
         select pg_notify($1, $2), pg_notify('${PUSH_DELIVERIES_CHANNEL}', '')`,
        [TASK_EVENTS_CHANNEL, `${taskId.toLowerCase()} ${seq}`, taskId, seq, JSON.stringify(configIds)],
      );
    }
    const row = inserted.rows[0];
    if (!row) throw new Error(`event ${seq} of task ${taskId} was not stored`);
    return { event: toStoredEvent(row), pushed: configIds.length > 0 };
  });
}

/**
 * The end the orphan sweep writes (a2a-core's task runner: `failed`, metadata `{ reason: "orphaned" }`):
 * valid only while the task's lease is still expired.
 */
function isOrphanEnd(entry: NewTaskEvent): boolean {
  const { result } = entry;
  return (
    entry.event === "finished" &&
    "statusUpdate" in result &&
    (result.statusUpdate.metadata as { reason?: unknown } | undefined)?.reason === "orphaned"
  );
}
