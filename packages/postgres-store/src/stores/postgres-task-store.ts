import type { NewTask, TaskListPage, TaskListQuery, TaskRecord, TaskStore } from "@a2a-partner/a2a-core";
import type { Database } from "../database.js";
import { canonicalUuid, isUuid } from "../is-uuid.js";
import { createTask } from "../tasks/insert-task.js";
import { leaseDuration, TASK_COLUMNS, type TaskRow, toTaskRecord } from "../tasks/rows.js";
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
    // The database's clock decides, never an instance's own. The running tasks are read through
    // tasks_running_idx (`not terminal`) and each one's expiry checked: no index holds the expiry, which
    // every lease renewal moves (migration 0004).
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
    const { requested, canonical } = distinctUuids(taskIds);
    if (canonical.length === 0) return [];
    // The ids are sorted as the group commit's are; the order rows are locked in is the plan's (a scan
    // of the primary key visits them in id order), and a deadlock, should one happen, fails this renewal
    // only: it is logged and tried again at the next interval. The ids travel as one text parameter and only the leases NOT renewed come back (usually none): a
    // runner renews every lease it holds every few seconds, and an array parameter of thousands of ids
    // plus every id read back was most of what an idle server allocated (bench/NOTES.md).
    const { rows } = await this.db.query<{ id: string }>(
      `with wanted as (
         select unnest(string_to_array($2, ','))::uuid as id
       ), renewed as (
         update tasks set lease_expires_at = now() + $3::double precision * interval '1 millisecond', updated_at = now()
          where id = any(array(select id from wanted)) and lease_owner = $1 and not terminal
         returning id
       )
       select id from wanted except select id from renewed`,
      [owner, canonical.join(","), duration],
      { name: "a2a_renew_leases" },
    );
    if (rows.length === 0) return requested;
    const lost = new Set(rows.map((row) => canonicalUuid(String(row.id))));
    return requested.filter((id) => !lost.has(canonicalUuid(id)));
  }
}

/**
 * The valid UUIDs of `ids`, each once: as the caller spelled them, in the caller's order (`requested`),
 * and in PostgreSQL's spelling, sorted (`canonical`). Without duplicates (a runner's ids never repeat)
 * this builds no Set: it runs over every lease a process holds, every few seconds.
 */
function distinctUuids(ids: readonly string[]): { requested: string[]; canonical: string[] } {
  let requested = ids.filter(isUuid);
  let canonical = requested.map(canonicalUuid).sort();
  if (canonical.some((id, i) => i > 0 && id === canonical[i - 1])) {
    const seen = new Set<string>();
    requested = requested.filter((id) => {
      const key = canonicalUuid(id);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    canonical = [...seen].sort();
  }
  return { requested, canonical };
}
