import type { PushConfig, PushConfigStore, PutPushConfigResult } from "@a2a-partner/a2a-core";
import type { Database } from "../database.js";
import { isUuid } from "../is-uuid.js";
import { PUSH_CONFIG_COLUMNS, type PushConfigRow, pushConfigValues, toPushConfig } from "./push-config-rows.js";

/**
 * Creates or replaces a config, in one statement. The task row is locked first (`for no key update`:
 * group commits and other puts of the task wait, reads do not), so the count of its configs holds however
 * many instances add one at once, and its `push_config_ids` gains the new id in the same transaction as
 * the config (migration 0008: the writers of events read the list from the row). A replaced config keeps
 * its place in the list and takes the new values; its pending deliveries go to it from their next attempt.
 */
const PUT_CONFIG = `
with task as (
  select id, coalesce(push_config_ids, '{}'::text[]) as ids from tasks
   where id = $1 and workspace_id = $2
   for no key update
), allowed as (
  select id from task where $3 = any(ids) or cardinality(ids) < $9
), stored as (
  insert into push_configs (task_id, id, url, token, authentication, version, created_at)
  select id, $3, $4::text, $5::text, $6::jsonb, $7::text, $8::timestamptz from allowed
  on conflict (task_id, id) do update
    set url = excluded.url, token = excluded.token, authentication = excluded.authentication,
        version = excluded.version, created_at = excluded.created_at
  returning ${PUSH_CONFIG_COLUMNS}
), listed as (
  update tasks t set push_config_ids = task.ids || $3::text
    from task where t.id = task.id and not ($3 = any(task.ids)) and exists (select 1 from allowed)
)
select (select count(*) from task)::int as found, s.*
  from (select 1) one left join stored s on true`;

/**
 * Deletes a config, in one statement, under the task row's lock as `PUT_CONFIG` takes it: its id leaves
 * the task's list, and its deliveries (pending or given up) go with it (the foreign key cascades).
 */
const DELETE_CONFIG = `
with task as (
  select id, push_config_ids as ids from tasks
   where id = $1 and workspace_id = $2
   for no key update
), deleted as (
  delete from push_configs c using task where c.task_id = task.id and c.id = $3
  returning 1
), listed as (
  update tasks t set push_config_ids = nullif(array_remove(task.ids, $3::text), '{}')
    from task where t.id = task.id and $3 = any(task.ids)
)
select (select count(*) from task)::int as found, (select count(*) from deleted)::int as deleted`;

/**
 * A2A push configs in PostgreSQL (or PGlite), one row each in `push_configs`, scoped through their task's
 * workspace: another workspace's task reads as an unknown one. Deliveries are written by the event log.
 */
export class PostgresPushConfigStore implements PushConfigStore {
  constructor(private readonly db: Database) {}

  async put(workspaceId: string, config: PushConfig, maxPerTask: number): Promise<PutPushConfigResult> {
    if (!isUuid(workspaceId) || !isUuid(config.taskId)) return { kind: "task-not-found" };
    if (!Number.isInteger(maxPerTask) || maxPerTask < 0) throw new TypeError("maxPerTask must be a whole number");
    const v = pushConfigValues(config);
    const { rows } = await this.db.query<{ found: number } & Partial<PushConfigRow>>(PUT_CONFIG, [
      config.taskId,
      workspaceId,
      v.id,
      v.url,
      v.token,
      v.authentication,
      v.version,
      v.created_at,
      maxPerTask,
    ]);
    const row = rows[0];
    if (!row || row.found === 0) return { kind: "task-not-found" };
    if (row.id === undefined || row.id === null) return { kind: "too-many" };
    return { kind: "stored", config: toPushConfig(row as PushConfigRow) };
  }

  async get(workspaceId: string, taskId: string, configId: string): Promise<PushConfig | undefined> {
    if (!isUuid(workspaceId) || !isUuid(taskId)) return undefined;
    const { rows } = await this.db.query<PushConfigRow>(
      `select c.task_id, c.id, c.url, c.token, c.authentication, c.version, c.created_at
         from push_configs c join tasks t on t.id = c.task_id
        where c.task_id = $1 and c.id = $2 and t.workspace_id = $3`,
      [taskId, configId, workspaceId],
    );
    const row = rows[0];
    return row ? toPushConfig(row) : undefined;
  }

  async list(workspaceId: string, taskId: string): Promise<PushConfig[] | undefined> {
    if (!isUuid(workspaceId) || !isUuid(taskId)) return undefined;
    // The task row first (left join), so a task without configs is told apart from no task at all; its
    // configs in the order its list holds them, which is the order they were created in.
    const { rows } = await this.db.query<Partial<PushConfigRow>>(
      `select c.task_id, c.id, c.url, c.token, c.authentication, c.version, c.created_at
         from tasks t left join push_configs c on c.task_id = t.id
        where t.id = $1 and t.workspace_id = $2
        order by array_position(t.push_config_ids, c.id), c.created_at, c.id`,
      [taskId, workspaceId],
    );
    if (rows.length === 0) return undefined;
    return rows
      .filter((row) => row.id !== null && row.id !== undefined)
      .map((row) => toPushConfig(row as PushConfigRow));
  }

  async delete(workspaceId: string, taskId: string, configId: string): Promise<boolean | undefined> {
    if (!isUuid(workspaceId) || !isUuid(taskId)) return undefined;
    const { rows } = await this.db.query<{ found: number; deleted: number }>(DELETE_CONFIG, [
      taskId,
      workspaceId,
      configId,
    ]);
    const row = rows[0];
    if (!row || row.found === 0) return undefined;
    return row.deleted > 0;
  }
}
