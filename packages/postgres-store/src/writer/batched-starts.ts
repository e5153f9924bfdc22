import type { NewTask } from "@a2a-partner/a2a-core";
import { pushConfigsJson } from "../push/push-config-rows.js";
import { type HandOffSql, pushConfigIdsSql, startPushCtes } from "../push/push-write-sql.js";
import { type StartTaskResult, startedRecord, startRowValues } from "../tasks/insert-task.js";
import { firstMessageSql, snapshotApartSql, type TaskRow } from "../tasks/rows.js";
import { storedTaskJson } from "../tasks/stored-shapes.js";

/**
 * A task start as it rides a group commit (one asked for while the writer is busy): the values of the
 * start statement (insert-task.ts) as one element of the batch's `starts` parameter, its snapshot already
 * JSON in the stored shape (the created record is parsed from it, as a start on its own does).
 */
export interface BatchedStart {
  input: NewTask;
  /**
   * The element without `ord` and `snapshot`, as JSON object members: `"id":…,"workspace_id":…`, and
   * `"push_configs":[…]` when the start has inline push configs.
   */
  members: string;
  snapshotJson: string;
  /** The start has inline push configs: its batch's statement stores them (see `startCtes`). */
  withPush: boolean;
}

/** Checks a start as a statement of its own would, and shapes its batch element. */
export function batchedStart(input: NewTask, messageId: string | undefined): BatchedStart {
  const withPush = (input.pushConfigs?.length ?? 0) > 0;
  let members = JSON.stringify(startRowValues(input, messageId)).slice(1, -1);
  if (withPush) members += `,"push_configs":${pushConfigsJson(input.pushConfigs ?? [])}`;
  return { input, members, snapshotJson: storedTaskJson(input.task), withPush };
}

/** The batch's `starts` parameter: each start numbered by its place (`ord`), which the answers name. */
export function startsParameter(starts: readonly BatchedStart[]): string {
  return `[${starts.map((start, ord) => `{"ord":${ord},${start.members},"snapshot":${start.snapshotJson}}`).join(",")}]`;
}

/**
 * The starts of a batch, given its parameter number: inserted as the start statement inserts one (the task
 * row and its seq-1 `task` event, the first message apart; a key that already names a task inserts nothing),
 * in key order: two instances' batches starting the same keys then wait for each other in one order, never
 * in a circle (of two starts of one key in a batch, the first asked for wins). `withPush` (some start of
 * the batch has inline push configs): their configs and seq-1 deliveries too, in `start_configs` and
 * `start_deliveries` (a batch without any runs the statement it ran before migration 0008).
 */
export function startCtes(param: number, withPush: boolean, handOff?: HandOffSql): string {
  const pushColumn = withPush ? ", push_configs jsonb" : "";
  return `starts as (
  select * from jsonb_to_recordset($${param}::jsonb)
    as s(ord integer, id uuid, workspace_id uuid, context_id text, message_id text, snapshot jsonb, state text,
         terminal boolean, lease_owner text, lease_ms double precision, created_at timestamptz, status_at text${pushColumn})
), started as (
  insert into tasks
    (id, workspace_id, context_id, message_id, snapshot, first_message, state, terminal, last_seq, lease_owner,
     lease_expires_at, created_at, updated_at, status_at, final_status_at${withPush ? ", push_config_ids" : ""})
  select id, workspace_id, context_id, message_id, ${snapshotApartSql("snapshot")}, ${firstMessageSql("snapshot")},
         state, terminal, 1, lease_owner,
         now() + lease_ms * interval '1 millisecond', created_at, created_at, status_at::timestamptz,
         case when terminal then status_at::timestamptz end${withPush ? `, ${pushConfigIdsSql("push_configs")}` : ""}
    from starts order by workspace_id, message_id, ord
  on conflict (workspace_id, message_id) do nothing
  returning id, workspace_id, message_id, snapshot, last_seq, lease_owner, lease_expires_at, created_at
), started_events as (
  insert into task_events (task_id, seq, event, result, created_at)
  select id, 1, 'task', snapshot, created_at from started
)${withPush ? `, ${startPushCtes("started t join starts i on i.id = t.id", "i.push_configs", handOff)}` : ""}`;
}

/**
 * The answer rows of a batch's starts: the created task (its snapshot not sent back: the caller has it),
 * or the task the key already names. A start with neither met a start of the same key in the same batch
 * (or, on PostgreSQL, one that committed after this statement began): it is asked again.
 */
export const START_ANSWERS = `
select 'created' as kind, s.id::text as id, i.ord, null::bigint as notified, s.workspace_id, s.message_id,
       null::jsonb as snapshot, s.last_seq, s.lease_owner, s.lease_expires_at, s.created_at,
       null::jsonb as first_message, null::jsonb as handed
  from started s join starts i on i.id = s.id
union all
select 'existing', t.id::text, i.ord, null::bigint, t.workspace_id, t.message_id, t.snapshot, t.last_seq,
       t.lease_owner, t.lease_expires_at, t.created_at, t.first_message, null::jsonb
  from starts i join tasks t on t.workspace_id = i.workspace_id and t.message_id = i.message_id
 where not exists (select 1 from started s where s.id = i.id)`;

/** The task columns of `START_ANSWERS`, null, for the other rows of a batch's answer. */
export const NO_TASK_COLUMNS =
  "null::uuid as workspace_id, null::text as message_id, null::jsonb as snapshot, null::integer as last_seq, " +
  "null::text as lease_owner, null::timestamptz as lease_expires_at, null::timestamptz as created_at, " +
  "null::jsonb as first_message";

export type StartAnswerRow = TaskRow & { kind: "created" | "existing"; ord: number };

/** A batched start's outcome from its answer row (none: a start of the same key in the batch took it). */
export function startResultOf(row: StartAnswerRow | undefined, start: BatchedStart): StartTaskResult {
  return row ? startedRecord(row, row.kind === "created", start.input, start.snapshotJson) : undefined;
}
