import { PUSH_CONFIG_RECORD } from "./push-config-rows.js";
import { PUSH_DELIVERIES_CHANNEL } from "./push-wakeups.js";

// What the writers of events add to their statements for push notifications (migration 0008): a task
// start's inline configs with their seq-1 deliveries, the claim of deliveries handed off to this process's
// dispatcher, and the NOTIFY once deliveries were inserted that nobody holds. The group commit's own
// deliveries are in writer/batch-statement.ts.

/**
 * A statement's hand-off (`PushDeliveryQueue.handOff`) as SQL: the parameters holding the owner and the
 * lease in ms (`$3`, …).
 */
export interface HandOffSql {
  owner: string;
  leaseMs: string;
}

/** The columns of a delivery insert, `deliveryValues` gives their values after task, config and seq. */
export const DELIVERY_COLUMNS = "task_id, config_id, seq, attempts, claimed_by, claimed_until";

/** What a delivery insert returns: the key, when it became durable, and whether it was handed off. */
export const DELIVERY_RETURNING = "task_id, config_id, seq, durable_at, claimed_by is not null as handed";

/**
 * The values of `attempts, claimed_by, claimed_until` of an inserted delivery: claimed for the hand-off's
 * owner, attempt 1, when `free` (an SQL boolean: it may go to that owner now) holds; otherwise, or without
 * a hand-off, unclaimed for `claim`.
 */
export function deliveryClaimValues(free: string, handOff: HandOffSql | undefined): string {
  if (!handOff) return "0, null::text, null::timestamptz";
  return `case when ${free} then 1 else 0 end, case when ${free} then ${handOff.owner}::text end,
         case when ${free} then now() + ${handOff.leaseMs}::double precision * interval '1 millisecond' end`;
}

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
 * task row is in. With a hand-off every one is handed off: a new config has nothing older pending.
 */
export function startPushCtes(from: string, configs: string, handOff?: HandOffSql): string {
  return `start_configs as (
  insert into push_configs (task_id, id, url, token, authentication, version, created_at)
  select t.id, c.id, c.url, c.token, c.authentication, c.version, c.created_at
    from ${from} cross join jsonb_to_recordset(${configs}) as c(${PUSH_CONFIG_RECORD})
  returning task_id, id
), start_deliveries as (
  insert into push_deliveries (${DELIVERY_COLUMNS})
  select task_id, id, 1, ${deliveryClaimValues("true", handOff)} from start_configs
  returning ${DELIVERY_RETURNING}
)`;
}

/**
 * A CTE `push_notified` that NOTIFYs the dispatchers when any of the CTEs `inserting` (each returning
 * `DELIVERY_RETURNING` per delivery) inserted one that was not handed off. A plain CTE runs only when read:
 * the statement's answer must read it (`select count(*) from push_notified`), which also tells this
 * process to wake its own dispatchers.
 */
export function pushNotifiedCte(inserting: readonly string[]): string {
  const rows = inserting.map((name) => `select 1 from ${name} where not handed`).join(" union all ");
  return `push_notified as (
  select pg_notify('${PUSH_DELIVERIES_CHANNEL}', '') as sent from (${rows}) d having count(*) > 0
)`;
}
