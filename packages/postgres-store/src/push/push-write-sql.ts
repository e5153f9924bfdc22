import { PUSH_CONFIG_RECORD } from "./push-config-rows.js";
import { PUSH_DELIVERIES_CHANNEL } from "./push-wakeups.js";

// What the writers of events add to their statements for push notifications (migration 0008): a task
// start's inline configs with their seq-1 deliveries, and the NOTIFY once deliveries were inserted. The
// group commit's own deliveries are in writer/batch-statement.ts.

/**
 * SQL: the ids of the configs in the JSON array `json` (`pushConfigsJson`), in order, for the task row's
 * `push_config_ids`; null for an empty array or none.
 */
export function pushConfigIdsSql(json: string): string {
  return `(select array_agg(c.value->>'id' order by c.ord) from jsonb_array_elements(${json}) with ordinality as c(value, ord))`;
}

/**
 * The CTEs that store a start's inline configs and a delivery of its seq-1 `task` event to each: `from`
 * names the created task rows as `t` (a start whose key was taken created none, and so writes none),
 * `configs` the JSON array of that task's configs. Keys are checked at the end of the statement, when the
 * task row is in.
 */
export function startPushCtes(from: string, configs: string): string {
  return `start_configs as (
  insert into push_configs (task_id, id, url, token, authentication, version, created_at)
  select t.id, c.id, c.url, c.token, c.authentication, c.version, c.created_at
    from ${from} cross join jsonb_to_recordset(${configs}) as c(${PUSH_CONFIG_RECORD})
  returning task_id, id
), start_deliveries as (
  insert into push_deliveries (task_id, config_id, seq)
  select task_id, id, 1 from start_configs
  returning 1
)`;
}

/**
 * A CTE `push_notified` that NOTIFYs the dispatchers when any of the CTEs `inserting` (each returning a
 * row per delivery) inserted one. A plain CTE runs only when read: the statement's answer must read it
 * (`select count(*) from push_notified`), which also tells this process to wake its own dispatchers.
 */
export function pushNotifiedCte(inserting: readonly string[]): string {
  const rows = inserting.map((name) => `select 1 from ${name}`).join(" union all ");
  return `push_notified as (
  select pg_notify('${PUSH_DELIVERIES_CHANNEL}', '') as sent from (${rows}) d having count(*) > 0
)`;
}
