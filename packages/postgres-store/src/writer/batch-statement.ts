import { createHash } from "node:crypto";
import type { NumberedAppend } from "@a2a-partner/a2a-core";
import { isTerminalState } from "@a2a-partner/a2a-core";
import type { HandedRow } from "../push/handed-deliveries.js";
import {
  DELIVERY_COLUMNS,
  DELIVERY_RETURNING,
  deliveryClaimValues,
  type HandOffSql,
  pushNotifiedCte,
} from "../push/push-write-sql.js";
import { setStatusAt, snapshotAfterEventsSql, statusAtOf } from "../tasks/rows.js";
import { storedEventJson, storedState, storedTaskJson } from "../tasks/stored-shapes.js";
import { CARRIED_ENTRY_MAX_BYTES, TASK_EVENTS_CHANNEL, taskEventsEntry } from "../tasks/task-events-channel.js";
import type { TaskFollowers } from "../tasks/task-followers.js";
import {
  type BatchedStart,
  NO_TASK_COLUMNS,
  START_ANSWERS,
  type StartAnswerRow,
  startCtes,
  startsParameter,
} from "./batched-starts.js";

// The SQL of a group commit: what a batch of queued items becomes (one statement), and what it answers.
// The queue that forms the batches is group-commit-writer.ts.

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The events part of a batch: the snapshot moves only where the task is still at the runner's
 * `prev_seq` (nobody else wrote to it and it has not ended), events are inserted only for the tasks
 * that moved, and the NOTIFY names them all. The unique (task_id, seq) stays the guard.
 *
 * The NOTIFY's entries (task-events-channel.ts: one per append, carrying its events when another process
 * follows the task (task-followers.ts) and they are small; joined by line breaks, which JSON text never
 * holds raw) are made here and sent only for the tasks that moved: an append refused for its stale
 * `prev_seq` never announces events the log does not hold. Consecutive entries share a payload up to
 * twice `CARRIED_ENTRY_MAX_BYTES`: each one ends in the window of the payload it joins, and starts at
 * most one window earlier.
 *
 * Rows to update are also named by `= any(array(...))` of their keys: the planner guesses 100 rows for
 * any `jsonb_to_recordset`, and with that guess a hash join over a sequential scan of the whole table
 * looks cheaper than 100 index probes until a table holds tens of thousands of rows, so every batch read
 * every task ever stored. Keys in an array it guesses at 10, and it turns to the primary key once a table
 * holds a few thousand rows (a generic plan's EXPLAIN: a sequential scan at 300 tasks, the index at
 * 3,000). A named statement keeps its plan until ANALYZE changes the table's statistics: autovacuum's
 * on PostgreSQL, the store's stand-in for it on PGlite.
 *
 * `status_at` comes with the snapshot (migration 0005), as text cast only for the rows that move (an
 * append refused for its stale `prev_seq` stays refused, whatever its timestamp); where the batch has
 * none for a task, the column is left as it was and the table's trigger derives it.
 *
 * The snapshot is stored without the first message where the row keeps that apart (migration 0006): the
 * message is not written again with each event.
 *
 * Each inserted event gets a push delivery per config of its task (migration 0008), from the ids the task
 * row lists (`push_config_ids`, returned by the update that moved it) and the events' numbers (a moved
 * task's events are exactly `prev_seq + 1 .. last_seq`: the insert joins the same rows): no other table or
 * CTE is read, and a task without configs (a null list) costs an unnest of nothing. A config stored while
 * this statement waited for the task row is seen, because the update reads the row it waited for again (a
 * join with `push_configs` would read that table as it was when the statement began).
 *
 * With a hand-off (`PushDeliveryQueue.handOff`), a config's deliveries are claimed for this process's
 * dispatcher in the same insert when every older pending delivery of that config (if any) is held by the
 * hand-off's owner under a live lease, and the config's row is in this statement's snapshot (one stored
 * while the statement waited is not: its deliveries are left for `claim`). Every earlier event of the
 * task committed before this statement began (a task's writer waits for each append, and another
 * instance's append must pass the `prev_seq` check under the task row's lock), so what the statement sees
 * pending is all there is; a delivery that changed since (completed, given back) only makes it careful:
 * the dispatcher sends one handed behind an older one (`after`) only once it has delivered that one.
 */
function eventCtes(handOff: HandOffSql | undefined, entriesParam: string): string {
  return `
batch as (
  select * from jsonb_to_recordset($1::jsonb)
    as b(task_id uuid, prev_seq integer, last_seq integer, snapshot jsonb, state text, terminal boolean,
         status_at text)
), moved as (
  update tasks t
     set snapshot = ${snapshotAfterEventsSql("b.snapshot")}, state = b.state, terminal = b.terminal, last_seq = b.last_seq, updated_at = now(),
         ${setStatusAt("b.status_at::timestamptz", "b.terminal")}
    from batch b
   where t.id = any(array(select task_id from batch)) and t.id = b.task_id and t.last_seq = b.prev_seq
     and not t.terminal
  returning t.id, t.workspace_id, t.last_seq, b.prev_seq, t.push_config_ids
), inserted as (
  insert into task_events (task_id, seq, event, result, created_at)
  select e.task_id, e.seq, e.event, e.result, e.created_at
    from jsonb_to_recordset($2::jsonb) as e(task_id uuid, seq integer, event text, result jsonb, created_at timestamptz)
    join moved m on m.id = e.task_id
  returning 1
), ${handOff ? handedDeliveriesCte(handOff) : PLAIN_DELIVERIES_CTE}, notified as (
  select pg_notify('${TASK_EVENTS_CHANNEL}', string_agg(n.entry, ',' order by n.ord)) as sent
    from (select p.entry, p.ord, sum(octet_length(p.entry) + 1) over (order by p.ord) as upto
            from unnest(string_to_array(${entriesParam}, chr(10))) with ordinality as p(entry, ord)
            join moved m on m.id::text = split_part(p.entry, ' ', 1)) n
   group by (n.upto - 1) / ${CARRIED_ENTRY_MAX_BYTES}
)`;
}

/** `delivered`: each moved task's new events, a delivery per config of the task, none claimed. */
const PLAIN_DELIVERIES_CTE = `delivered as (
  insert into push_deliveries (${DELIVERY_COLUMNS})
  select m.id, c.config_id, s.seq, ${deliveryClaimValues("false", undefined)}
    from moved m
    cross join lateral unnest(m.push_config_ids) as c(config_id)
    cross join lateral generate_series(m.prev_seq + 1, m.last_seq) as s(seq)
  returning ${DELIVERY_RETURNING}
)`;

/**
 * `delivered` with a hand-off: whether each moved task's config is free is decided once per task and
 * config, in a CTE of its own: its row is in the snapshot, and every older pending delivery of it (if any)
 * is held by the hand-off's owner under a live lease (`after`: the newest one's seq, which the dispatcher
 * must have delivered first). Folded into the insert, the planner evaluated the probes once per use per
 * event row, and priced the statement (it guesses 1,000 rows for any `generate_series`) past PostgreSQL's
 * `jit_above_cost`: every commit then paid ~50 ms compiling.
 */
function handedDeliveriesCte(handOff: HandOffSql): string {
  return `pushing as materialized (
  select m.id, m.prev_seq, m.last_seq, c.config_id,
         (select o.seq from push_deliveries o
           where o.task_id = m.id and o.config_id = c.config_id and o.given_up_at is null
           order by o.seq desc limit 1) as after,
         not exists (select 1 from push_deliveries o
                      where o.task_id = m.id and o.config_id = c.config_id and o.given_up_at is null
                        and (o.claimed_by is distinct from ${handOff.owner}::text or o.claimed_until <= now()))
         and exists (select 1 from push_configs p where p.task_id = m.id and p.id = c.config_id) as free
    from moved m
    cross join lateral unnest(m.push_config_ids) as c(config_id)
), delivered as (
  insert into push_deliveries (${DELIVERY_COLUMNS})
  select g.id, g.config_id, s.seq, ${deliveryClaimValues("g.free", handOff)}
    from pushing g
    cross join lateral generate_series(g.prev_seq + 1, g.last_seq) as s(seq)
  returning ${DELIVERY_RETURNING}
)`;
}

/** A row for `insertRows` / `updateRows`: column name → value (a jsonb column takes the value itself). */
export type GroupCommitRow = Readonly<Record<string, unknown>>;

/** One thing asked of a commit, as the statement sees it (the queue adds who waits for it). */
export type BatchEntry =
  | { kind: "append"; append: NumberedAppend }
  | { kind: "start"; start: BatchedStart }
  | { kind: "insert"; table: string; columns: readonly string[]; rows: readonly GroupCommitRow[] }
  | { kind: "update"; table: string; key: string; columns: readonly string[]; rows: readonly GroupCommitRow[] };

/**
 * What one commit stored: its items, the events and other rows among them, the tasks they move (a start
 * that created its task counts as one more task and its seq-1 event; one whose key was taken wrote nothing).
 */
export function batchSize(
  batch: readonly BatchEntry[],
  createdStarts: number,
): { items: number; events: number; rows: number; tasks: number } {
  let events = createdStarts;
  let rows = 0;
  let tasks = createdStarts;
  for (const item of batch) {
    if (item.kind === "append") {
      events += item.append.events.length;
      tasks++; // a batch holds at most one append per task
    } else if (item.kind !== "start") {
      rows += item.rows.length;
    }
  }
  return { items: batch.length, events, rows, tasks };
}

export function checkIdentifiers(names: readonly string[]): TypeError | undefined {
  const bad = names.find((name) => !IDENTIFIER.test(name));
  return bad === undefined ? undefined : new TypeError(`invalid identifier ${JSON.stringify(bad)}`);
}

/**
 * A row of a batch's answer: a task the events moved, the outcome of a start, or (at most one) the word
 * that deliveries were inserted (and the dispatchers NOTIFYed).
 */
export type AnswerRow =
  | { kind: "moved"; id: string }
  | { kind: "pushed" }
  | { kind: "handed"; handed: HandedRow[] }
  | StartAnswerRow;

/** Who a batch hands its free deliveries off to (`PushDeliveryQueue.handOff`). */
export interface BatchHandOff {
  owner: string;
  leaseMs: number;
}

/** The answer's `handed` column, null, for every row but the hand-off's. */
const NO_HANDED = "null::jsonb as handed";

/** The handed-off deliveries of the CTEs `delivered` (appends: config from its row) and `start_deliveries`. */
function handedAnswer(appends: boolean, starts: boolean): string {
  const rows: string[] = [];
  if (appends) {
    rows.push(`select d.task_id, d.config_id, d.seq, d.durable_at, m.workspace_id, p.url, p.token, p.authentication,
         p.version, p.created_at, g.after
    from delivered d join moved m on m.id = d.task_id
    join pushing g on g.id = d.task_id and g.config_id = d.config_id
    join push_configs p on p.task_id = d.task_id and p.id = d.config_id
   where d.handed`);
  }
  if (starts) {
    rows.push(`select d.task_id, d.config_id, d.seq, d.durable_at, null::uuid, null::text, null::text, null::jsonb,
         null::text, null::timestamptz, null::integer
    from start_deliveries d where d.handed`);
  }
  return `select 'handed' as kind, null::text as id, null::integer as ord, null::bigint as notified, ${NO_TASK_COLUMNS},
       jsonb_agg(jsonb_build_object('task_id', h.task_id, 'config_id', h.config_id, 'seq', h.seq,
         'durable_at', h.durable_at, 'workspace_id', h.workspace_id, 'url', h.url, 'token', h.token,
         'authentication', h.authentication, 'version', h.version, 'created_at', h.created_at,
         'after', h.after)) as handed
  from (${rows.join("\n  union all\n  ")}) as h(task_id, config_id, seq, durable_at, workspace_id, url, token,
       authentication, version, created_at, after)
having count(*) > 0`;
}

/** A batch shape's statement: its SQL, and the name it is prepared under (planned once per connection). */
interface ShapeStatement {
  sql: string;
  name: string;
}

/** Each batch shape seen, its statement built and named once: shapes are few (which parts, tables, columns). */
const STATEMENT_BY_SHAPE = new Map<string, ShapeStatement>();
/** Past this many shapes (a bug making endless ones), a batch's SQL is built each time and run unnamed. */
const MAX_NAMED_SHAPES = 64;

/** A batch's insert or update rows of one table and column list. */
type RowGroup = { item: Extract<BatchEntry, { kind: "insert" | "update" }>; rows: GroupCommitRow[] };

/** What a batch's SQL text depends on: which parts it has, and its row groups in the order first asked for. */
interface BatchShape {
  appends: boolean;
  handOff: boolean;
  starts: boolean;
  startsWithPush: boolean;
  groups: readonly RowGroup["item"][];
}

/**
 * The whole batch as one statement: the events' CTEs (when there are events), then one CTE per table
 * and column list, in the order they were first asked for. Data-modifying CTEs always run, and all of
 * them form one atomic statement; foreign keys are checked at its end.
 *
 * The SQL text depends only on the batch's shape, so each shape's text is built and named once and the
 * same string returned again: a commit then skips building and hashing a few KiB of SQL (and pg, which
 * compares the text with the one it prepared under that name, finds the very same string).
 */
export function batchStatement(
  batch: readonly BatchEntry[],
  handOff?: BatchHandOff,
  followers?: Pick<TaskFollowers, "followedElsewhere">,
): { sql: string; params: unknown[]; name?: string } {
  // Task rows in id order: two group commits over the same rows (two instances' writers) then tend to
  // lock them in the same order. A lease renewal never waits for a row (`skip locked`), so it cannot
  // deadlock with a group commit whatever order either takes.
  const appends = batch
    .flatMap((item) => (item.kind === "append" ? [item.append] : []))
    .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  const params: unknown[] = [];
  const starts = batch.flatMap((item) => (item.kind === "start" ? [item.start] : []));
  const startsWithPush = starts.some((start) => start.withPush);
  // Appends always have their deliveries inserted (a config may be stored at any time); starts only when given configs.
  const handing = handOff && (appends.length > 0 || startsWithPush) ? handOff : undefined;
  // The parameters in the order shapeSql numbers them: the events' $1 to $3, the hand-off, the starts, the rows.
  if (appends.length > 0) {
    const rows = appends.map(eventRowsJson);
    params.push(
      `[${appends.map(taskRowJson).join(",")}]`,
      `[${rows.flat().join(",")}]`,
      appends
        .map((append, index) =>
          notifiedEntry(append, followers?.followedElsewhere(append.taskId) ? rows[index] : undefined),
        )
        .join("\n"),
    );
  }
  if (handing) params.push(handing.owner, handing.leaseMs);
  if (starts.length > 0) params.push(startsParameter(starts));
  const groups = rowGroups(batch);
  for (const { item, rows } of groups.values()) {
    const columns = item.kind === "update" ? [item.key, ...item.columns] : item.columns;
    params.push(JSON.stringify(rows.map((row) => pick(row, columns))));
  }
  const parts = `${appends.length > 0 ? "a" : ""}${handing ? "h" : ""}${starts.length > 0 ? "s" : ""}${startsWithPush ? "p" : ""}`;
  const key = `${parts} ${[...groups.keys()].join(";")}`;
  const known = STATEMENT_BY_SHAPE.get(key);
  if (known) return { ...known, params };
  const sql = shapeSql({
    appends: appends.length > 0,
    handOff: handing !== undefined,
    starts: starts.length > 0,
    startsWithPush,
    groups: [...groups.values()].map((group) => group.item),
  });
  if (STATEMENT_BY_SHAPE.size >= MAX_NAMED_SHAPES) return { sql, params };
  const statement = { sql, name: `a2a_batch_${createHash("sha1").update(sql).digest("hex").slice(0, 16)}` };
  STATEMENT_BY_SHAPE.set(key, statement);
  return { ...statement, params };
}

/** The batch's inserts and updates, one group per table and column list, in the order first asked for. */
function rowGroups(batch: readonly BatchEntry[]): Map<string, RowGroup> {
  const groups = new Map<string, RowGroup>();
  for (const item of batch) {
    if (item.kind === "append" || item.kind === "start") continue;
    const key = `${item.kind} ${item.table} ${item.kind === "update" ? item.key : ""} ${item.columns.join(",")}`;
    const group = groups.get(key);
    if (group) group.rows.push(...item.rows);
    else groups.set(key, { item, rows: [...item.rows] });
  }
  return groups;
}

/** The statement of a batch shape, its parameters numbered as batchStatement pushes them. */
function shapeSql(shape: BatchShape): string {
  let param = shape.appends ? 3 : 0;
  const handOffSql: HandOffSql | undefined = shape.handOff
    ? { owner: `$${param + 1}`, leaseMs: `$${param + 2}` }
    : undefined;
  if (handOffSql) param += 2;
  const ctes: string[] = [];
  if (shape.appends) ctes.push(eventCtes(handOffSql, "$3"));
  if (shape.starts) ctes.push(startCtes(++param, shape.startsWithPush, handOffSql));
  const deliveries = [...(shape.appends ? ["delivered"] : []), ...(shape.startsWithPush ? ["start_deliveries"] : [])];
  if (deliveries.length > 0) ctes.push(pushNotifiedCte(deliveries));
  for (const item of shape.groups) {
    const source = `jsonb_populate_recordset(null::${item.table}, $${++param}::jsonb)`;
    const name = `rows_${ctes.length}`;
    if (item.kind === "insert") {
      const columns = item.columns.join(", ");
      ctes.push(`${name} as (insert into ${item.table} (${columns}) select ${columns} from ${source} returning 1)`);
    } else {
      const set = item.columns.map((column) => `${column} = r.${column}`).join(", ");
      ctes.push(
        `${name} as (update ${item.table} t set ${set} from ${source} r where t.${item.key} = r.${item.key}` +
          // The keys as an array too, so the planner turns to the index early (see `eventCtes`).
          ` and t.${item.key} = any(array(select k.${item.key} from ${source} k)) returning 1)`,
      );
    }
  }
  const answers: string[] = [];
  if (shape.appends) {
    // Naming `notified` here is what runs its NOTIFY (a plain CTE runs only when read).
    answers.push(
      "select 'moved' as kind, m.id::text as id, null::integer as ord, (select count(*) from notified) as notified, " +
        `${NO_TASK_COLUMNS}, ${NO_HANDED} from moved m`,
    );
  }
  if (shape.starts) answers.push(START_ANSWERS);
  if (deliveries.length > 0) {
    // Reading `push_notified` runs its NOTIFY; the row tells this process to wake its own dispatchers.
    answers.push(
      `select 'pushed' as kind, null::text as id, null::integer as ord, count(*) as notified, ${NO_TASK_COLUMNS}, ` +
        `${NO_HANDED} from push_notified having count(*) > 0`,
    );
  }
  if (handOffSql) answers.push(handedAnswer(shape.appends, shape.startsWithPush));
  const select = answers.length > 0 ? answers.join("\nunion all\n") : "select null::text as kind where false";
  return `with ${ctes.join(",\n")}\n${select}`;
}

/**
 * The task row as JSON: it moves from the append's `prev_seq` to its last event (several events move it
 * once). Its snapshot is spliced in without its first message: the row keeps that apart (or, an older
 * row, in the snapshot it already has), so an event never serialises and sends the partner's message
 * again (up to 48 KiB of JSON).
 */
function taskRowJson(append: NumberedAppend): string {
  const { snapshot } = append;
  const row = JSON.stringify({
    task_id: append.taskId,
    prev_seq: append.prevSeq,
    last_seq: append.prevSeq + append.events.length,
    state: storedState(snapshot.status.state),
    terminal: isTerminalState(snapshot.status.state),
    status_at: statusAtOf(snapshot),
  });
  return `${row.slice(0, -1)},"snapshot":${storedTaskJson(snapshot, { withoutFirstMessage: true })}}`;
}

/**
 * The event rows of an append as JSON, each `result` the stored JSON as made once (the task's v0.3
 * streams send the very same text), spliced in rather than parsed and serialised again.
 */
function eventRowsJson(append: NumberedAppend): string[] {
  return append.events.map((event) => {
    const row = JSON.stringify({
      task_id: append.taskId,
      seq: event.seq,
      event: event.event,
      created_at: new Date(event.createdAt).toISOString(),
    });
    return `${row.slice(0, -1)},"result":${storedEventJson(event.result)}}`;
  });
}

/**
 * The append's entry in the commit's NOTIFY: its events carried when given `rows` (another process
 * follows the task) and they fit (and are on one line), else the task named only.
 */
function notifiedEntry(append: NumberedAppend, rows: readonly string[] | undefined): string {
  const lastSeq = append.prevSeq + append.events.length;
  const named = `${append.taskId.toLowerCase()} ${lastSeq}`;
  if (rows === undefined) return named;
  const entry = taskEventsEntry(append.taskId, lastSeq, append.prevSeq + 1, rows);
  return entry.includes("\n") ? named : entry;
}

function pick(row: GroupCommitRow, columns: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of columns) out[column] = row[column] ?? null;
  return out;
}
