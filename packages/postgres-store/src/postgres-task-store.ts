import type { NewTask, TaskListPage, TaskListQuery, TaskRecord, TaskStore } from "@a2a-partner/a2a-core";
import type { Database } from "./database.js";
import { createTask } from "./internal/insert-task.js";
import { leaseDuration, TASK_COLUMNS, type TaskRow, toTaskRecord } from "./internal/rows.js";
import { isUuid } from "./is-uuid.js";
import { listTasksPage } from "./list-tasks-query.js";

/** Tasks in PostgreSQL (or PGlite): the `tasks` row holds the snapshot; `task_events` holds the log. */
export class PostgresTaskStore implements TaskStore {
  constructor(private readonly db: Database) {}

  create(input: NewTask): Promise<TaskRecord> {
    return createTask(this.db, input);
  }

  async get(workspaceId: string, taskId: string): Promise<TaskRecord | undefined> {
    if (!isUuid(workspaceId) || !isUuid(taskId)) return undefined;
    const { rows } = await this.db.query<TaskRow>(
      `select ${TASK_COLUMNS} from tasks where id = $1 and workspace_id = $2`,
      [taskId, workspaceId],
      { name: "a2a_get_task" },
    );
    const row = rows[0];
    return row ? toTaskRecord(row) : undefined;
  }

  /** ListTasks: see list-tasks-query.ts. */
  list(workspaceId: string, query: TaskListQuery): Promise<TaskListPage> {
    return listTasksPage(this.db, workspaceId, query);
  }

  async listOrphaned(limit: number): Promise<TaskRecord[]> {
    const max = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
    if (max === 0) return [];
    // The database's clock decides, never an instance's own. `not terminal and lease_expires_at < …` is
    // the predicate of tasks_orphaned_idx.
    const { rows } = await this.db.query<TaskRow>(
      `select ${TASK_COLUMNS} from tasks
        where not terminal and lease_expires_at < now()
        order by created_at, id
        limit $1`,
      [max],
    );
    return rows.map(toTaskRecord);
  }

  async renewLeases(owner: string, taskIds: readonly string[], durationMs: number): Promise<string[]> {
    const duration = leaseDuration(durationMs);
    // Sorted: the group commit updates task rows in id order too, so the two never deadlock each other.
    const ids = [...new Set(taskIds.filter(isUuid).map((id) => id.toLowerCase()))].sort();
    if (ids.length === 0) return [];
    const { rows } = await this.db.query<{ id: string }>(
      `update tasks set lease_expires_at = now() + $3::double precision * interval '1 millisecond', updated_at = now()
        where id = any($2::uuid[]) and lease_owner = $1 and not terminal
        returning id`,
      [owner, ids, duration],
    );
    const renewed = new Set(rows.map((row) => row.id));
    // In the caller's order and spelling, so it can match them against its own list (once each: a Set,
    // not indexOf, since a process renews thousands of leases at a time).
    const seen = new Set<string>();
    return taskIds.filter((id) => {
      if (seen.has(id) || !isUuid(id) || !renewed.has(id.toLowerCase())) return false;
      seen.add(id);
      return true;
    });
  }
}
