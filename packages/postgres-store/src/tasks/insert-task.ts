import { type CreateOrGetResult, isTerminalState, type NewTask, type TaskRecord } from "@a2a-partner/a2a-core";
import type { Queryable } from "../database.js";
import { isUuid } from "../is-uuid.js";
import { type HandedRow, handedDeliveries } from "../push/handed-deliveries.js";
import { pushConfigsJson } from "../push/push-config-rows.js";
import {
  deliveryTakerOf,
  handDeliveries,
  hasLocalDeliveryWatchers,
  wakeLocalDeliveries,
} from "../push/push-wakeups.js";
import { pushConfigIdsSql, pushNotifiedCte, startPushCtes } from "../push/push-write-sql.js";
import { STORE_ATTR, storeTelemetry } from "../telemetry/store-telemetry.js";
import { asRequestDataError } from "./data-error.js";
import {
  firstMessageSql,
  leaseDuration,
  snapshotApartSql,
  sqlTimestamp,
  statusAtOf,
  TASK_COLUMNS,
  type TaskRow,
  toTaskRecord,
} from "./rows.js";
import { storedState, storedTaskJson } from "./stored-shapes.js";

/**
 * The created row as the start statement returns it: its snapshot is the caller's own task, so it is
 * not sent back (PostgreSQL would print the document and the driver parse it again, ~0.02 ms a start
 * on PGlite); `startTask` parses the JSON it sent instead.
 */
const CREATED_TASK_COLUMNS = TASK_COLUMNS.replace("snapshot", "null::jsonb as snapshot").replace(
  "first_message",
  "null::jsonb as first_message",
);

/**
 * A task start in one statement (one round trip, its own transaction): the task row and its seq-1
 * `task` event, or — when (workspace, messageId) already names a task — nothing written and that task
 * returned. The unique constraint decides, so this holds across processes too. Without a messageId
 * ($4 null) nothing can conflict. `status_at` is written here, not by the trigger (migration 0005). The
 * first message goes to a column of its own, written once; the snapshot and the seq-1 event are stored
 * without it (migration 0006). With inline push configs ($12, a JSON array: `withPush`), the created task
 * gets them, their ids on its row, and a delivery of its seq-1 event each (migration 0008); the answer
 * then says whether deliveries were inserted (`pushed`), and this process wakes its own dispatchers. When
 * it has one, the start sends no NOTIFY: PostgreSQL lets one transaction that notified commit at a time
 * (a database-wide lock held through the commit's WAL flush), so concurrent starts that each notified
 * queued behind one another (measured: starts waiting on `Lock:object` whenever push was on). The
 * dispatchers of other instances hear of the task at its next group commit, which NOTIFYs (one at a time
 * per process), or at their poll; an instance without a dispatcher (`push.dispatch: false`) NOTIFYs from
 * the start too. With a dispatcher that takes hand-offs (`handOff`: $13 its owner, $14 its lease), the
 * deliveries are claimed for it in the statement (`handed_at`: when they became durable) and handed to it,
 * nothing to wake or NOTIFY. A start without configs (nearly all of them) runs exactly the statement it ran
 * before.
 */
function startTaskSql(withPush: boolean, mode: "notify" | "quiet" | "hand-off" = "quiet"): string {
  const pushed = withPush
    ? `, (select count(*) from ${mode === "notify" ? "push_notified" : "start_deliveries where not handed"}) as pushed` +
      (mode === "hand-off" ? ", (select max(durable_at) from start_deliveries where handed) as handed_at" : "")
    : "";
  const handOff = mode === "hand-off" ? { owner: "$13", leaseMs: "$14" } : undefined;
  const notify = mode === "notify";
  return `
with created as (
  insert into tasks
    (id, workspace_id, context_id, message_id, snapshot, first_message, state, terminal, last_seq, lease_owner,
     lease_expires_at, created_at, updated_at, status_at, final_status_at${withPush ? ", push_config_ids" : ""})
  values ($1, $2, $3, $4, ${snapshotApartSql("$5::jsonb")}, ${firstMessageSql("$5::jsonb")}, $6, $7, 1, $8,
          now() + $9::double precision * interval '1 millisecond',
          $10::timestamptz, $10::timestamptz, $11::timestamptz, case when $7 then $11::timestamptz end${
            withPush ? `, ${pushConfigIdsSql("$12::jsonb")}` : ""
          })
  on conflict (workspace_id, message_id) do nothing
  returning ${TASK_COLUMNS}
), first_event as (
  insert into task_events (task_id, seq, event, result, created_at)
  select id, 1, 'task', snapshot, created_at from created
)${withPush ? `, ${startPushCtes("created t", "$12::jsonb", handOff)}` : ""}${notify ? `, ${pushNotifiedCte(["start_deliveries"])}` : ""}
select true as created, ${CREATED_TASK_COLUMNS}${pushed} from created
union all
select false as created, ${TASK_COLUMNS}${pushed} from tasks
 where workspace_id = $2 and message_id = $4 and not exists (select 1 from created)`;
}

export const START_TASK = startTaskSql(false);
/**
 * START_TASK behind a transaction pooler: the same statement in a PL/pgSQL function (migration 0009,
 * whose body is START_TASK with `$n` as `pn`), so its plan is kept for the server session instead of
 * the unnamed statement being parsed and planned on every start.
 */
const START_TASK_POOLED = `select * from a2a_start_task(${Array.from({ length: 11 }, (_, i) => `$${i + 1}`).join(", ")})`;
const START_TASK_WITH_PUSH = startTaskSql(true);
const START_TASK_WITH_PUSH_NOTIFY = startTaskSql(true, "notify");
const START_TASK_WITH_PUSH_HAND_OFF = startTaskSql(true, "hand-off");

export type StartTaskResult = CreateOrGetResult | undefined;

/**
 * What a start asks of the group-commit writer (`GroupCommitWriter` is one): whether a commit is under
 * way, and a start that rides the next one. Named here so the tasks' statements do not import the writer
 * that builds on them.
 */
export interface StartBatcher {
  readonly busy: boolean;
  startTask(input: NewTask, messageId: string | undefined): Promise<StartTaskResult>;
}

/**
 * A start's row values (all but its snapshot), checked: the one source of what a start writes, whether
 * it is a statement of its own or rides a group commit (batched-starts.ts).
 */
export function startRowValues(input: NewTask, messageId: string | undefined) {
  const { task } = input;
  if (!isUuid(task.id)) throw new TypeError("task.id must be a UUID");
  if (!isUuid(input.workspaceId)) throw new TypeError("workspaceId must be a UUID");
  return {
    id: task.id,
    workspace_id: input.workspaceId,
    context_id: task.contextId,
    message_id: messageId ?? null,
    state: storedState(task.status.state),
    terminal: isTerminalState(task.status.state),
    lease_owner: input.lease.owner,
    lease_ms: leaseDuration(input.lease.durationMs),
    created_at: sqlTimestamp(input.createdAt, "createdAt"),
    status_at: statusAtOf(task),
  };
}

/**
 * Starts a task: `created` true with the new record, or false with the task the key already names.
 * Undefined only when a concurrent start with the same key committed after this statement's snapshot
 * was taken (its row is invisible here though the conflict saw it): ask again. With a `writer` that is
 * busy the start rides its next commit instead of being a statement of its own (see
 * `GroupCommitWriter.startTask`).
 */
export async function startTask(
  db: Queryable,
  input: NewTask,
  messageId: string | undefined,
  writer?: StartBatcher,
): Promise<StartTaskResult> {
  const { task } = input;
  if (!isUuid(task.id)) throw new TypeError("task.id must be a UUID");
  if (!isUuid(input.workspaceId)) throw new TypeError("workspaceId must be a UUID");
  const telemetry = storeTelemetry();
  const span = telemetry.startWrite("start_task", "kind" in db ? (db as { kind?: string }).kind : undefined);
  span?.setAttribute(STORE_ATTR.taskId, task.id);
  const startedAt = performance.now();
  let started: StartTaskResult;
  try {
    // Alone, the start statement is the quicker way (a batch's statement costs more, and waits a turn to
    // gather); beside a commit under way it would wait for that commit anyway, so it joins the next one.
    started = writer?.busy ? await writer.startTask(input, messageId) : await startStatement(db, input, messageId);
  } catch (error) {
    telemetry.endWrite("start_task", span, startedAt, undefined, error);
    // The task is the partner's request: a value PostgreSQL refuses is the caller's mistake, not an outage.
    throw asRequestDataError(error);
  }
  span?.setAttribute(STORE_ATTR.created, started?.created ?? false);
  telemetry.endWrite("start_task", span, startedAt);
  return started;
}

async function startStatement(db: Queryable, input: NewTask, messageId: string | undefined): Promise<StartTaskResult> {
  const v = startRowValues(input, messageId);
  const snapshot = storedTaskJson(input.task);
  const configs = input.pushConfigs?.length ? pushConfigsJson(input.pushConfigs) : undefined;
  const taker = configs === undefined ? undefined : deliveryTakerOf(db);
  const notify = configs !== undefined && !taker && !hasLocalDeliveryWatchers(db);
  const [sql, name] =
    configs === undefined
      ? [START_TASK, "a2a_start_task"]
      : taker
        ? [START_TASK_WITH_PUSH_HAND_OFF, "a2a_start_task_push_hand_off"]
        : notify
          ? [START_TASK_WITH_PUSH_NOTIFY, "a2a_start_task_push_notify"]
          : [START_TASK_WITH_PUSH, "a2a_start_task_push"];
  const { rows } = await db.query<
    TaskRow & { created: boolean; pushed?: number | string; handed_at?: Date | string | null }
  >(
    sql,
    [
      v.id,
      v.workspace_id,
      v.context_id,
      v.message_id,
      snapshot,
      v.state,
      v.terminal,
      v.lease_owner,
      v.lease_ms,
      v.created_at,
      v.status_at,
      ...(configs === undefined ? [] : [configs]),
      ...(taker ? [taker.owner, taker.leaseMs] : []),
    ],
    configs === undefined
      ? { name, pooledSql: START_TASK_POOLED, onWarmConnection: true }
      : { name, onWarmConnection: true },
  );
  const row = rows[0];
  if (row && Number(row.pushed ?? 0) > 0) wakeLocalDeliveries(db);
  const handedAt = row?.created ? row.handed_at : undefined;
  if (taker && row && handedAt) {
    const taskId = row.id;
    const handed = (input.pushConfigs ?? []).map((config) => startHandedRow(taskId, config.id, handedAt));
    queueMicrotask(() => handDeliveries(taker, () => handedDeliveries(handed, [], [input])));
  }
  return row ? startedRecord(row, row.created, input, snapshot) : undefined;
}

/** A start's handed-off delivery to one of its configs, as a batch's answer would list it. */
function startHandedRow(taskId: string, configId: string, durableAt: Date | string): HandedRow {
  return {
    task_id: taskId,
    config_id: configId,
    seq: 1,
    durable_at: durableAt instanceof Date ? durableAt.toISOString() : durableAt,
    workspace_id: null,
    url: null,
    token: null,
    authentication: null,
    version: null,
    created_at: null,
  };
}

/**
 * The record a start answers with, from its row. A created row's snapshot is not sent back: it is parsed
 * from the JSON the start sent (a fresh copy, as from a row: the caller's task object stays its own).
 */
export function startedRecord(row: TaskRow, created: boolean, input: NewTask, snapshotJson: string): StartTaskResult {
  if (created) {
    row.snapshot = JSON.parse(snapshotJson) as TaskRow["snapshot"];
    row.first_message = null; // the whole task is in the JSON sent
  }
  const record = toTaskRecord(row);
  // The row's copies of strings the caller already holds (its workspace, its runner's lease owner, shared
  // by every task it starts) give way to the caller's: a running task keeps one copy less of each.
  if (record.workspaceId === input.workspaceId) record.workspaceId = input.workspaceId;
  if (record.lease?.owner === input.lease.owner) record.lease.owner = input.lease.owner;
  return { created, record };
}

/** A task start without an idempotency key: nothing can conflict, so it either inserts or throws. */
export async function createTask(db: Queryable, input: NewTask, writer?: StartBatcher): Promise<TaskRecord> {
  const started = await startTask(db, input, undefined, writer);
  if (!started?.created) throw new Error(`task ${input.task.id} was not stored`);
  return started.record;
}
