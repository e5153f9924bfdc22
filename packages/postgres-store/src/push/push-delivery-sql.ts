import type { PushDelivery } from "@a2a-partner/a2a-core";
import { type TaskEventRow, toIso, toStoredEvent } from "../tasks/rows.js";
import { type PushConfigRow, toPushConfig } from "./push-config-rows.js";
import { PUSH_DELIVERIES_CHANNEL } from "./push-wakeups.js";

// The statements of the delivery queue (migration 0008). Every time is the database's clock, so instances
// whose clocks disagree still agree on what is due and whose claim has expired.

/**
 * A delivery may be claimed when it is pending (not given up), due (`dueNow`), under no live claim, and
 * the oldest pending one of its config: an older pending delivery of the same config (claimed, waiting
 * for a retry, or simply first) holds it back, so one delivery per config is in flight and a receiver
 * sees a task's events in order. `d` is the delivery; the older one is found through the primary key.
 */
function claimable(dueNow: boolean): string {
  return `d.given_up_at is null${dueNow ? " and d.due_at <= now()" : ""}
     and (d.claimed_until is null or d.claimed_until <= now())
     and not exists (
       select 1 from push_deliveries o
        where o.task_id = d.task_id and o.config_id = d.config_id and o.seq < d.seq and o.given_up_at is null)`;
}

/** SET of a claim by $1 for $3 ms from now. */
const TAKE = `claimed_by = $1, claimed_until = now() + $3::double precision * interval '1 millisecond',
         attempts = d.attempts + 1`;

/**
 * The answer of a claim: each claimed row with its config, its task's workspace and its event (the seq-1
 * event with its task's first message, which the stored event was written without: migration 0006).
 */
const CLAIMED_ANSWER = `
select k.task_id, k.config_id, k.seq, k.attempts, k.durable_at, t.workspace_id,
       c.url, c.token, c.authentication, c.version, c.created_at,
       e.event, e.result, e.created_at as event_created_at,
       case when k.seq = 1 then t.first_message end as first_message
  from claimed k
  join push_configs c on c.task_id = k.task_id and c.id = k.config_id
  join tasks t on t.id = k.task_id
  join task_events e on e.task_id = k.task_id and e.seq = k.seq`;

/**
 * Claims up to $2 due deliveries for $1, earliest due first, in one statement: the rows are locked `for
 * update skip locked` (dispatchers claiming at once take different rows, and none waits for another), and
 * a row another dispatcher claimed meanwhile is checked again once its lock is released (its new claim
 * then keeps it out). Params: $1 owner, $2 limit, $3 lease (ms).
 */
function claimWhere(also: string): string {
  return `
with candidates as (
  select d.task_id, d.config_id, d.seq from push_deliveries d
   where ${claimable(true)}${also}
   order by d.due_at
   limit $2
   for update of d skip locked
), claimed as (
  update push_deliveries d set ${TAKE}
    from candidates n
   where d.task_id = n.task_id and d.config_id = n.config_id and d.seq = n.seq
  returning d.task_id, d.config_id, d.seq, d.attempts, d.durable_at
)${CLAIMED_ANSWER}`;
}

export const CLAIM = claimWhere("");

/**
 * `CLAIM` passing over the workspaces in $4 and the receivers of a workspace in $5/$6 (they hold their
 * share of the dispatcher's slots; a receiver is its URL's authority as written, lower-cased:
 * `pushReceiverOf`). Params as `CLAIM`, and $4 workspace ids, $5 and $6 the receivers' workspaces and names.
 */
export const CLAIM_SKIPPING = claimWhere(`
     and not exists (
       select 1 from tasks s join push_configs r on r.task_id = s.id
        where s.id = d.task_id and r.id = d.config_id
          and (s.workspace_id = any($4::uuid[])
               or (s.workspace_id, lower(substring(r.url from '^[A-Za-z][A-Za-z0-9+.-]*://(?:[^@/?#]*@)?([^/?#]*)')))
                  in (select * from unnest($5::uuid[], $6::text[]))))`);

/**
 * The receivers took them (deliveries of one owner, each of a different config; one or a tick's worth):
 * deletes each one $1 still holds, and in the same statement claims each such config's next pending
 * delivery when it is due. A next one $1 holds already (handed off behind it: usually further along the
 * same run; or left by an earlier life of this owner, a restarted dispatch thread) is not claimed again
 * but its lease renewed from now, lapsed or not, and it is handed back too: the dispatcher sends it unless
 * a run of its own holds it. Until this statement the older delivery held it back, so it is never
 * claimable by anyone else in between. Params: $1 owner, $2 lease (ms), $3 tasks, $4 configs, $5 seqs
 * (arrays, in step).
 */
export const COMPLETE_MANY = `
with input as (
  select * from unnest($3::uuid[], $4::text[], $5::integer[]) as i(task_id, config_id, seq)
), done as (
  delete from push_deliveries p using input i
   where p.task_id = i.task_id and p.config_id = i.config_id and p.seq = i.seq and p.claimed_by = $1
  returning p.task_id, p.config_id, p.seq
), next as (
  select n.task_id, n.config_id, n.seq from done cross join lateral (
    select d.task_id, d.config_id, d.seq from push_deliveries d
     where d.task_id = done.task_id and d.config_id = done.config_id and d.seq > done.seq
       and d.given_up_at is null
     order by d.seq
     limit 1
     for update of d skip locked) n
), renewed as (
  update push_deliveries d set claimed_until = now() + $2::double precision * interval '1 millisecond'
    from next n
   where d.task_id = n.task_id and d.config_id = n.config_id and d.seq = n.seq and d.claimed_by = $1
  returning d.task_id, d.config_id, d.seq, d.attempts, d.durable_at
), taken as (
  update push_deliveries d set ${TAKE.replaceAll("$3", "$2")}
    from next n
   where d.task_id = n.task_id and d.config_id = n.config_id and d.seq = n.seq
     and d.claimed_by is distinct from $1
     and d.due_at <= now() and (d.claimed_until is null or d.claimed_until <= now())
  returning d.task_id, d.config_id, d.seq, d.attempts, d.durable_at
), claimed as (
  select * from taken union all select * from renewed
)${CLAIMED_ANSWER}`;

/**
 * Gives a claimed delivery back unsent, if $1 still holds it: claimable again at once, the attempt it was
 * claimed for not counted, its last error kept. Params: $1 owner, $2 task, $3 config, $4 seq.
 */
export const RELEASE = `
update push_deliveries set claimed_by = null, claimed_until = null, attempts = greatest(attempts - 1, 0)
 where task_id = $2 and config_id = $3 and seq = $4 and claimed_by = $1`;

/**
 * A failed attempt, if $1 still holds it: unclaimed, due again at $5, $6 its error. Params: $1 owner,
 * $2 task, $3 config, $4 seq.
 */
export const RETRY = `
update push_deliveries set claimed_by = null, claimed_until = null, due_at = $5::timestamptz, last_error = $6
 where task_id = $2 and config_id = $3 and seq = $4 and claimed_by = $1`;

/**
 * Past the horizon, if $1 still holds it: kept as given up, and the config's next delivery is free to go
 * (the NOTIFY tells every dispatcher). Params as `RETRY`'s, $5 the reason.
 */
export const GIVE_UP = `
with given_up as (
  update push_deliveries set claimed_by = null, claimed_until = null, given_up_at = now(), last_error = $5
   where task_id = $2 and config_id = $3 and seq = $4 and claimed_by = $1
  returning 1
)
select pg_notify('${PUSH_DELIVERIES_CHANNEL}', '') from given_up`;

/**
 * When a dispatcher should look again at the latest: the earliest due delivery it could claim (the scan
 * stops at the first), or the earliest expiry of a live claim (another instance's lease that may lapse).
 */
export const NEXT_DUE = `
select least(
  (select d.due_at from push_deliveries d where ${claimable(false)}
    order by d.due_at limit 1),
  (select min(d.claimed_until) from push_deliveries d where d.given_up_at is null and d.claimed_until > now())
) as next`;

/** A row of `CLAIMED_ANSWER`. */
export interface ClaimedRow extends Omit<PushConfigRow, "id"> {
  config_id: string;
  seq: number;
  attempts: number;
  durable_at: Date | string;
  workspace_id: string;
  event: PushDelivery["event"]["event"];
  result: TaskEventRow["result"];
  event_created_at: Date | string;
  first_message: TaskEventRow["first_message"] | null;
}

/** The delivery's key as the queue hands it out: `<taskId>/<seq>/<configId>` (opaque to its users). */
export function deliveryId(taskId: string, seq: number, configId: string): string {
  return `${taskId}/${seq}/${configId}`;
}

/** The key of a delivery this queue handed out; undefined for anything else. */
export function deliveryKey(id: string): { taskId: string; seq: number; configId: string } | undefined {
  const first = id.indexOf("/");
  const second = first < 0 ? -1 : id.indexOf("/", first + 1);
  if (second < 0) return undefined;
  const seq = Number(id.slice(first + 1, second));
  if (!Number.isInteger(seq) || seq < 1) return undefined;
  return { taskId: id.slice(0, first), seq, configId: id.slice(second + 1) };
}

export function toPushDelivery(row: ClaimedRow): PushDelivery {
  const event = toStoredEvent({
    task_id: row.task_id,
    seq: row.seq,
    event: row.event,
    result: row.result,
    created_at: row.event_created_at,
    first_message: row.first_message,
  });
  return {
    id: deliveryId(row.task_id, row.seq, row.config_id),
    workspaceId: row.workspace_id,
    config: toPushConfig({ ...row, id: row.config_id }),
    event,
    attempt: row.attempts,
    durableAt: toIso(row.durable_at),
  };
}
