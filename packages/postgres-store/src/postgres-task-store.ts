import type { NewTask, TaskRecord, TaskStore } from "@a2a-partner/a2a-core";
import type { Database } from "./database.js";
import { insertTask } from "./insert-task.js";
import { isUuid, sqlTimestamp, TASK_COLUMNS, type TaskRow, toTaskRecord } from "./rows.js";

/** Tasks in PostgreSQL (or PGlite): the `tasks` row holds the snapshot; `task_events` holds the log. */
export class PostgresTaskStore implements TaskStore {
  constructor(private readonly db: Database) {}

  async create(input: NewTask): Promise<TaskRecord> {
    const record = await this.db.transaction((tx) => insertTask(tx, input, undefined));
    // Without an idempotency key the insert has no conflict clause: it either inserts or throws.
    if (!record) throw new Error(`task ${input.task.id} was not stored`);
    return record;
  }

  async get(workspaceId: string, taskId: string): Promise<TaskRecord | undefined> {
    if (!isUuid(workspaceId) || !isUuid(taskId)) return undefined;
    const { rows } = await this.db.query<TaskRow>(
      `select ${TASK_COLUMNS} from tasks where id = $1 and workspace_id = $2`,
      [taskId, workspaceId],
    );
    const row = rows[0];
    return row ? toTaskRecord(row) : undefined;
  }

  async listOrphaned(now: string, limit: number): Promise<TaskRecord[]> {
    const cutoff = sqlTimestamp(now, "now");
    const max = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
    if (max === 0) return [];
    // `not terminal and lease_expires_at < …` is the predicate of tasks_orphaned_idx.
    const { rows } = await this.db.query<TaskRow>(
      `select ${TASK_COLUMNS} from tasks
        where not terminal and lease_expires_at < $1::timestamptz
        order by created_at, id
        limit $2`,
      [cutoff, max],
    );
    return rows.map(toTaskRecord);
  }

  async renewLeases(owner: string, taskIds: readonly string[], expiresAt: string): Promise<string[]> {
    const until = sqlTimestamp(expiresAt, "expiresAt");
    const ids = [...new Set(taskIds.filter(isUuid).map((id) => id.toLowerCase()))];
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<{ id: string }>(
      `update tasks set lease_expires_at = $3::timestamptz, updated_at = now()
        where id = any($2::uuid[]) and lease_owner = $1 and not terminal
        returning id`,
      [owner, ids, until],
    );
    const renewed = new Set(rows.map((row) => row.id));
    // In the caller's order and spelling, so it can match them against its own list.
    return taskIds.filter((id, index) => isUuid(id) && renewed.has(id.toLowerCase()) && taskIds.indexOf(id) === index);
  }
}
