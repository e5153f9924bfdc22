import {
  isTerminalState,
  type NewTask,
  type TaskListPage,
  type TaskListQuery,
  type TaskRecord,
  type TaskStore,
} from "@a2a-partner/a2a-core";
import type { Database, Queryable } from "../database.js";
import { canonicalUuid, isUuid } from "../is-uuid.js";
import { createTask } from "../tasks/insert-task.js";
import { leaseDuration, TASK_COLUMNS, type TaskRow, toTaskRecord } from "../tasks/rows.js";
import { listTasksPage } from "./list-tasks-query.js";
import { RunningTaskIds, replicaCaughtUp } from "./replica-reads.js";

/**
 * Tasks in PostgreSQL (or PGlite): the `tasks` row holds the snapshot; `task_events` holds the log.
 * With a replica (`Database.replica`), reads go there only when its answer is provably the primary's.
 */
export class PostgresTaskStore implements TaskStore {
  private readonly replica: Queryable | undefined;
  private readonly running = new RunningTaskIds();

  constructor(private readonly db: Database) {
    this.replica = db.replica;
  }

  async create(input: NewTask): Promise<TaskRecord> {
    const created = await createTask(this.db, input);
    if (this.replica && !isTerminalState(created.task.status.state)) this.running.add(created.task.id);
    return created;
  }

  /**
   * An ended task never changes, so one the replica has as ended is the primary's answer too (unless
   * retention deleted it since). Anything else it says (no such task, still running) may be lag: the
   * primary answers then, and tasks seen running skip the replica from then on.
   */
  async get(workspaceId: string, taskId: string): Promise<TaskRecord | undefined> {
    if (!isUuid(workspaceId) || !isUuid(taskId)) return undefined;
    if (this.replica && !this.running.has(taskId)) {
      const ended = await readTask(this.replica, workspaceId, taskId).catch(() => undefined);
      if (ended && isTerminalState(ended.task.status.state)) return ended;
    }
    const record = await readTask(this.db, workspaceId, taskId);
    if (this.replica && record) {
      if (isTerminalState(record.task.status.state)) this.running.delete(taskId);
      else this.running.add(taskId);
    }
    return record;
  }

  /**
   * ListTasks (see list-tasks-query.ts): on the replica when it has replayed everything the primary had
   * written when the request came, else on the primary.
   */
  async list(workspaceId: string, query: TaskListQuery): Promise<TaskListPage> {
    if (this.replica && (await replicaCaughtUp(this.db, this.replica))) {
      try {
        return await listTasksPage(this.replica, workspaceId, query);
      } catch {
        // The replica failed mid-way (or refused the request's values, as the primary would): ask there.
      }
    }
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
    // A renewal never waits for a task row another transaction holds (`skip locked`): waiting, it could
    // hold some rows while a group commit held others (their locking orders are the plans', and a bitmap
    // scan of thousands of ids takes rows in their physical order), and the deadlock detector then
    // failed the group commit, its events and the tasks they belonged to (seen in the push bench with
    // ~1,000 tasks running). A row held meanwhile is tried again a moment later, a few times; one still
    // held after that is kept (its task still ours) and renewed at the next interval, a third of the lease
    // away. The ids travel as one text parameter and only the leases NOT renewed come back (usually none):
    // a runner renews every lease it holds every few seconds, and an array parameter of thousands of ids
    // plus every id read back was most of what an idle server allocated (bench/NOTES.md).
    const lost = new Set<string>();
    let pending = canonical;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const { rows } = await this.db.query<{ id: string; busy: boolean }>(
        RENEW_LEASES,
        [owner, pending.join(","), duration],
        {
          name: "a2a_renew_leases",
        },
      );
      for (const row of rows) if (!row.busy) lost.add(canonicalUuid(String(row.id)));
      pending = rows.filter((row) => row.busy).map((row) => String(row.id));
      if (pending.length === 0 || attempt >= RENEW_ATTEMPTS) break;
      await new Promise((resolve) => setTimeout(resolve, RENEW_RETRY_MS));
    }
    if (lost.size === 0) return requested;
    return requested.filter((id) => !lost.has(canonicalUuid(id)));
  }
}

async function readTask(db: Queryable, workspaceId: string, taskId: string): Promise<TaskRecord | undefined> {
  const { rows } = await db.query<TaskRow>(
    `select ${TASK_COLUMNS} from tasks where id = $1 and workspace_id = $2`,
    [taskId, workspaceId],
    { name: "a2a_get_task" },
  );
  const row = rows[0];
  return row ? toTaskRecord(row) : undefined;
}

/** Tries in all of a renewal (the first and the retries of rows other transactions held), `RENEW_RETRY_MS` apart. */
const RENEW_ATTEMPTS = 4;
const RENEW_RETRY_MS = 50;

/**
 * Renews the leases $1 holds on the tasks $2 (comma-separated ids) for $3 ms, taking only rows no other
 * transaction holds, so it never waits for one (`no key update`: what the update needs, so a foreign-key
 * check's share lock on the row, a push config being added to the task, does not count as held). Answers the ids it did not renew: `busy` when the row was
 * held (still $1's, running, as last committed), else lost (ended, taken over, or no such task).
 */
const RENEW_LEASES = `
with wanted as (
  select unnest(string_to_array($2, ','))::uuid as id
), mine as (
  select id from tasks where id = any(array(select id from wanted)) and lease_owner = $1 and not terminal
), taken as (
  select id from tasks where id in (select id from mine) and lease_owner = $1 and not terminal
     for no key update skip locked
), renewed as (
  update tasks t set lease_expires_at = now() + $3::double precision * interval '1 millisecond', updated_at = now()
    from taken k
   where t.id = k.id
  returning t.id
)
select id, false as busy from (select id from wanted except select id from mine) lost
union all
select id, true as busy from (select id from mine except select id from renewed) held`;

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
