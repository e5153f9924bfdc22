import { createHash } from "node:crypto";
import {
  type CreateOrGetResult,
  checkNumberedAppend,
  isTerminalState,
  type NewTask,
  type NumberedAppend,
} from "@a2a-partner/a2a-core";
import type { SpanContext } from "@opentelemetry/api";
import type { Database } from "./database.js";
import {
  type BatchedStart,
  batchedStart,
  NO_TASK_COLUMNS,
  START_ANSWERS,
  type StartAnswerRow,
  startCtes,
  startResultOf,
  startsParameter,
} from "./internal/batched-starts.js";
import { isRowError } from "./internal/data-error.js";
import type { StartTaskResult } from "./internal/insert-task.js";
import { setStatusAt, sqlTimestamp, statusAtOf } from "./internal/rows.js";
import { TASK_EVENTS_CHANNEL } from "./internal/task-events-channel.js";
import { isUuid } from "./is-uuid.js";
import { storeTelemetry } from "./telemetry/store-telemetry.js";

/**
 * The channel payload lists "<taskId> <seq>" pairs separated by commas; PostgreSQL caps a payload at
 * 8000 bytes, so a batch moves at most this many tasks (about 41 bytes each).
 */
const MAX_TASKS_PER_BATCH = 150;
/** Rows of all kinds in one commit, so one batch never becomes one huge statement. */
const MAX_ROWS_PER_BATCH = 5_000;
/** Distinct batch shapes given a name (planned once per connection); more are run unnamed. */
const MAX_NAMED_SHAPES = 64;

const IDENTIFIER = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The events part of a batch: the snapshot moves only where the task is still at the runner's
 * `prev_seq` (nobody else wrote to it and it has not ended), events are inserted only for the tasks
 * that moved, and one NOTIFY names them all. The unique (task_id, seq) stays the guard.
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
 */
const EVENT_CTES = `
batch as (
  select * from jsonb_to_recordset($1::jsonb)
    as b(task_id uuid, prev_seq integer, last_seq integer, snapshot jsonb, state text, terminal boolean,
         status_at text)
), moved as (
  update tasks t
     set snapshot = b.snapshot, state = b.state, terminal = b.terminal, last_seq = b.last_seq, updated_at = now(),
         ${setStatusAt("b.status_at::timestamptz", "b.terminal")}
    from batch b
   where t.id = any(array(select task_id from batch)) and t.id = b.task_id and t.last_seq = b.prev_seq
     and not t.terminal
  returning t.id, t.last_seq
), inserted as (
  insert into task_events (task_id, seq, event, result, created_at)
  select e.task_id, e.seq, e.event, e.result, e.created_at
    from jsonb_to_recordset($2::jsonb) as e(task_id uuid, seq integer, event text, result jsonb, created_at timestamptz)
    join moved m on m.id = e.task_id
  returning 1
), notified as (
  select pg_notify('${TASK_EVENTS_CHANNEL}', string_agg(m.id::text || ' ' || m.last_seq, ',')) as sent
    from moved m having count(*) > 0
)`;

/** A row for `insertRows` / `updateRows`: column name → value (a jsonb column takes the value itself). */
export type Row = Readonly<Record<string, unknown>>;

interface Waiting<T> {
  resolve(value: T): void;
  reject(error: unknown): void;
  /** The span the write was asked for in (when traced): the commit's span links back to it. */
  caller?: SpanContext | undefined;
}

type Item =
  | ({ kind: "append"; append: NumberedAppend } & Waiting<boolean>)
  | ({ kind: "start"; start: BatchedStart } & Waiting<StartTaskResult>)
  | ({ kind: "insert"; table: string; columns: readonly string[]; rows: readonly Row[] } & Waiting<void>)
  | ({ kind: "update"; table: string; key: string; columns: readonly string[]; rows: readonly Row[] } & Waiting<void>);

export interface GroupCommitWriterOptions {
  /**
   * Commits that may be under way at once. Default 1, classic group commit. With one, no item lands in
   * an earlier commit than a row insert or update asked for before it (a task's second event waits for
   * the commit after its first, and later items may pass that one), so a row may refer to a row handed
   * over just before it: the reference server's robot fleet hands over a workflow execution and, without
   * waiting, the node executions that refer to it (keys are checked at the end of the statement). Rows
   * in one commit are one statement, though, so an update there does not see a row inserted with it:
   * await an insert before updating its row. With more than one, a later item may commit first, and
   * whoever needs one item durable before another must await the first; the fleet does not, so on
   * PostgreSQL its node executions can then fail on their foreign key. The default stays 1 for that
   * order and because a second commit bought little: measured on a 2-core machine with the fleet's rows
   * put in order, 2 in flight +5 % tasks/s for +7 % CPU per task, 4 −6 % (bench/NOTES.md).
   * The exception is a database that runs its statements in the order asked for on a worker thread
   * (`Database.inWorker`): there a later commit cannot overtake an earlier one, and the default is 2,
   * so the worker executes one commit while this thread prepares the next. When a batch fails and its
   * items are committed one by one, a later batch that failed too waits for them; one that succeeded
   * held no row that needed theirs (a row referring to a row it did not find fails its batch).
   */
  maxCommitsInFlight?: number;
}

/**
 * One writer per process (group commit). Whatever is asked of it while a commit is in flight — events of
 * any number of tasks, rows that ride along (the robot fleet's metrics records) — goes into the next
 * commit together, as ONE statement: the events, every table's rows (one multi-row insert or update per
 * table, through data-modifying CTEs) and one NOTIFY, so a batch is one round trip and its own
 * transaction. Every promise resolves once its own commit has; nothing needs a timer, because batches
 * form while the previous commit is under way.
 */
export class GroupCommitWriter {
  private queue: Item[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxInFlight: number;
  /** Start the next commit as soon as one has committed, before its callers are answered. */
  private readonly nextBeforeAnswers: boolean;
  /** The failed batches being committed item by item, in the order they failed (see `commitOneByOne`). */
  private splitting: Promise<void> = Promise.resolve();
  private splitsUnderWay = 0;
  private readonly named = new Map<string, string>();
  private readonly telemetry = storeTelemetry();

  constructor(
    private readonly db: Database,
    options: GroupCommitWriterOptions = {},
  ) {
    this.maxInFlight = Math.max(1, options.maxCommitsInFlight ?? (db.inWorker ? 2 : 1));
    // Answering a commit's callers (their SSE frames, the robots' next steps) takes this thread a while;
    // a database on a worker thread would sit idle through it. On this thread's own database (PGlite on
    // the main thread) the next commit would instead run before those answers and hold them up.
    this.nextBeforeAnswers = db.inWorker === true;
  }

  /** Stores an owner-numbered event (see EventLog.appendNumbered): true once durable, false if refused. */
  appendNumbered(append: NumberedAppend): Promise<boolean> {
    if (!isUuid(append.taskId)) return Promise.reject(new Error(`unknown task ${JSON.stringify(append.taskId)}`));
    try {
      checkNumberedAppend(append);
      for (const event of append.events) sqlTimestamp(event.createdAt, "createdAt");
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue<boolean>((waiting) => ({ kind: "append", append, ...waiting }));
  }

  /**
   * Whether a commit is under way or tasks' events wait for the next: a start asked for now is better off
   * joining them (`startTask`). Rows alone waiting (a robot fleet's last records of a task) do not count:
   * a start on an otherwise quiet server goes out on its own.
   */
  get busy(): boolean {
    return this.inFlight > 0 || this.queue.some((item) => item.kind === "append");
  }

  /**
   * Starts a task with the next commit, as the start statement would: the created task, the one
   * `messageId` already names in the workspace, or undefined when a start of the same key in the same
   * commit took it (ask again). For a store whose one connection is the writer (PGlite), where a start of
   * its own would wait for the commit under way and then pay for a statement and a commit of its own.
   */
  startTask(input: NewTask, messageId: string | undefined): Promise<CreateOrGetResult | undefined> {
    let start: BatchedStart;
    try {
      start = batchedStart(input, messageId);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.enqueue<StartTaskResult>((waiting) => ({ kind: "start", start, ...waiting }));
  }

  /**
   * Inserts rows into `table` with the next commit. Identifiers are checked against a strict pattern;
   * values travel as one JSON parameter per table (a jsonb column takes the value itself, a Date its ISO
   * text). Rows of one table and column list become one multi-row INSERT, so the table's statement
   * triggers fire once per commit.
   */
  insertRows(table: string, columns: readonly string[], rows: readonly Row[]): Promise<void> {
    const invalid = checkIdentifiers([table, ...columns]);
    if (invalid) return Promise.reject(invalid);
    if (rows.length === 0) return Promise.resolve();
    return this.enqueue<void>((waiting) => ({ kind: "insert", table, columns, rows, ...waiting }));
  }

  /** Sets `columns` of the rows of `table` whose `key` matches, with the next commit. */
  updateRows(table: string, key: string, columns: readonly string[], rows: readonly Row[]): Promise<void> {
    const invalid = checkIdentifiers([table, key, ...columns]);
    if (invalid) return Promise.reject(invalid);
    if (rows.length === 0) return Promise.resolve();
    return this.enqueue<void>((waiting) => ({ kind: "update", table, key, columns, rows, ...waiting }));
  }

  private enqueue<T>(make: (waiting: Waiting<T>) => Item): Promise<T> {
    const caller = this.telemetry.callerSpanContext();
    return new Promise<T>((resolve, reject) => {
      this.queue.push(make({ resolve, reject, caller } as Waiting<T>));
      if (!this.scheduled && this.inFlight < this.maxInFlight) {
        this.scheduled = true;
        // One turn of the event loop lets what is being asked right now join the same commit.
        setImmediate(() => {
          this.scheduled = false;
          this.startCommits();
        });
      }
    });
  }

  /** Starts commits while there is work and room; each one finished makes room for the next batch. */
  private startCommits(): void {
    while (this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      const batch = this.takeBatch();
      this.inFlight++;
      // Room for the next batch once this one is done with: once its callers are answered, or with
      // `nextBeforeAnswers` as soon as it has committed (`commit` calls it then; a batch that fails
      // keeps its room until its items have been tried one by one).
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.inFlight--;
        this.startCommits();
      };
      void this.commitBatch(batch, this.nextBeforeAnswers ? release : undefined).finally(release);
    }
  }

  private async commitBatch(batch: Item[], committed?: () => void): Promise<void> {
    try {
      await this.commitRetryingDeadlocks(batch, committed);
    } catch (error) {
      // One bad row (or one value JSON cannot hold) must not fail its neighbours: commit each item alone.
      // Only for an error an item can cause: during an outage every retry would fail too, each after its
      // own connect timeout.
      const itemsCaused = isRowError(error) || error instanceof UnserializableItemError;
      // A batch of one is its item's answer, unless an earlier batch is being retried item by item: its
      // row may be missing only because that batch's rows are not in yet, so it is tried again after them.
      if (!itemsCaused || (batch.length === 1 && this.splitsUnderWay === 0)) {
        rejectAll(batch, error);
      } else {
        await this.commitOneByOne(batch);
      }
    }
  }

  /**
   * A failed batch's items, each in a commit of its own, in order. With more than one commit in flight a
   * later batch may have failed too (on a row that refers to one of this batch's, say): its items go only
   * after this batch's, so the rows still land in the order they were asked for.
   */
  private commitOneByOne(batch: Item[]): Promise<void> {
    this.splitsUnderWay++;
    const mine = this.splitting.then(async () => {
      for (const item of batch) {
        await this.commitRetryingDeadlocks([item]).catch((alone: unknown) => rejectAll([item], alone));
      }
    });
    this.splitting = mine.finally(() => {
      this.splitsUnderWay--;
    });
    return this.splitting;
  }

  /**
   * The statement is atomic, so one chosen as a deadlock victim (against a lease renewal or another
   * instance's cancel touching the same task rows) or failing serialisation wrote nothing: run it again.
   */
  private async commitRetryingDeadlocks(batch: Item[], committed?: () => void): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.commit(batch, committed);
        return;
      } catch (error) {
        if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(error)) throw error;
      }
    }
  }

  /** The next commit's items, in order: at most one event per task (a later one waits for the next). */
  private takeBatch(): Item[] {
    const batch: Item[] = [];
    const rest: Item[] = [];
    const tasks = new Set<string>();
    const started = new Set<string>();
    let rows = 0;
    let full = false;
    for (const item of this.queue) {
      if (item.kind === "start") {
        // Nothing asked for earlier waits on a start, so a start never waits behind a backlog: it joins the
        // next commit, unless a start of the same task id is already in it (each is answered by that id's row).
        const id = item.start.input.task.id.toLowerCase();
        if (started.has(id) || started.size >= MAX_TASKS_PER_BATCH) rest.push(item);
        else {
          started.add(id);
          batch.push(item);
        }
        continue;
      }
      const size = item.kind === "append" ? item.append.events.length : item.rows.length;
      // Once one item does not fit, neither does anything after it: rows commit in the order asked for.
      full ||= batch.length > 0 && (rows + size > MAX_ROWS_PER_BATCH || tasks.size >= MAX_TASKS_PER_BATCH);
      if (full || (item.kind === "append" && tasks.has(item.append.taskId.toLowerCase()))) {
        rest.push(item);
        continue;
      }
      if (item.kind === "append") tasks.add(item.append.taskId.toLowerCase());
      rows += size;
      batch.push(item);
    }
    this.queue = rest;
    return batch;
  }

  private async commit(batch: Item[], committed?: () => void): Promise<void> {
    let statement: { sql: string; params: unknown[] };
    try {
      statement = batchStatement(batch);
    } catch (error) {
      throw new UnserializableItemError(error);
    }
    const { sql, params } = statement;
    const span = this.telemetry.startWrite(
      "group_commit",
      this.db.kind,
      batch.map((item) => item.caller),
    );
    const startedAt = performance.now();
    let rows: AnswerRow[];
    try {
      ({ rows } = await this.db.query<AnswerRow>(sql, params, { name: this.nameOf(sql), background: true }));
    } catch (error) {
      this.telemetry.endWrite("group_commit", span, startedAt, undefined, error);
      throw error;
    }
    const moved = new Set<string>();
    const started = new Map<number, StartAnswerRow>();
    let created = 0;
    for (const row of rows) {
      if (row.kind === "moved") moved.add(row.id.toLowerCase());
      else {
        started.set(row.ord, row);
        if (row.kind === "created") created++;
      }
    }
    this.telemetry.endWrite("group_commit", span, startedAt, batchSize(batch, created));
    committed?.();
    let ord = 0;
    for (const item of batch) {
      if (item.kind === "append") item.resolve(moved.has(item.append.taskId.toLowerCase()));
      else if (item.kind === "start") item.resolve(startResultOf(started.get(ord++), item.start));
      else item.resolve();
    }
  }

  /** A stable name per batch shape (which tables, which columns), so each is planned once per connection. */
  private nameOf(sql: string): string | undefined {
    let name = this.named.get(sql);
    if (!name && this.named.size < MAX_NAMED_SHAPES) {
      name = `a2a_batch_${createHash("sha1").update(sql).digest("hex").slice(0, 16)}`;
      this.named.set(sql, name);
    }
    return name;
  }
}

/** Times a batch chosen as a deadlock victim is run again before its items fail. */
const DEADLOCK_ATTEMPTS = 3;

/** SQLSTATE 40P01 (deadlock detected) or 40001 (serialization failure): nothing was written, try again. */
function isDeadlock(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "40P01" || code === "40001";
}

/** An item whose values have no JSON form (a BigInt, a cycle): its caller's mistake, not the batch's. */
class UnserializableItemError extends Error {
  constructor(cause: unknown) {
    super("a value of this write has no JSON form", { cause });
    this.name = "UnserializableItemError";
  }
}

/**
 * What one commit stored: its items, the events and other rows among them, the tasks they move (a start
 * that created its task counts as one more task and its seq-1 event; one whose key was taken wrote nothing).
 */
function batchSize(
  batch: readonly Item[],
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

function checkIdentifiers(names: readonly string[]): TypeError | undefined {
  const bad = names.find((name) => !IDENTIFIER.test(name));
  return bad === undefined ? undefined : new TypeError(`invalid identifier ${JSON.stringify(bad)}`);
}

function rejectAll(items: Item[], error: unknown): void {
  for (const item of items) item.reject(error);
}

/**
 * The whole batch as one statement: the events' CTEs (when there are events), then one CTE per table
 * and column list, in the order they were first asked for. Data-modifying CTEs always run, and all of
 * them form one atomic statement; foreign keys are checked at its end.
 */
/** A row of a batch's answer: a task the events moved, or the outcome of a start. */
type AnswerRow = { kind: "moved"; id: string } | StartAnswerRow;

function batchStatement(batch: Item[]): { sql: string; params: unknown[] } {
  // Task rows in id order, as lease renewal takes them: two multi-row updates of the same rows then lock
  // them in the same order and cannot deadlock each other.
  const appends = batch
    .flatMap((item) => (item.kind === "append" ? [item.append] : []))
    .sort((a, b) => (a.taskId < b.taskId ? -1 : a.taskId > b.taskId ? 1 : 0));
  const params: unknown[] = [];
  const ctes: string[] = [];
  if (appends.length > 0) {
    // First: EVENT_CTES names its parameters $1 and $2.
    params.push(JSON.stringify(appends.map(taskRowOf)), JSON.stringify(appends.flatMap(eventRowsOf)));
    ctes.push(EVENT_CTES);
  }
  const starts = batch.flatMap((item) => (item.kind === "start" ? [item.start] : []));
  if (starts.length > 0) {
    params.push(startsParameter(starts));
    ctes.push(startCtes(params.length));
  }
  const groups = new Map<string, { item: Extract<Item, { kind: "insert" | "update" }>; rows: Row[] }>();
  for (const item of batch) {
    if (item.kind === "append" || item.kind === "start") continue;
    const key = `${item.kind} ${item.table} ${item.kind === "update" ? item.key : ""} ${item.columns.join(",")}`;
    const group = groups.get(key);
    if (group) group.rows.push(...item.rows);
    else groups.set(key, { item, rows: [...item.rows] });
  }
  for (const { item, rows } of groups.values()) {
    const columns = item.kind === "update" ? [item.key, ...item.columns] : item.columns;
    params.push(JSON.stringify(rows.map((row) => pick(row, columns))));
    const source = `jsonb_populate_recordset(null::${item.table}, $${params.length}::jsonb)`;
    const name = `rows_${ctes.length}`;
    if (item.kind === "insert") {
      const columns = item.columns.join(", ");
      ctes.push(`${name} as (insert into ${item.table} (${columns}) select ${columns} from ${source} returning 1)`);
    } else {
      const set = item.columns.map((column) => `${column} = r.${column}`).join(", ");
      ctes.push(
        `${name} as (update ${item.table} t set ${set} from ${source} r where t.${item.key} = r.${item.key}` +
          // The keys as an array too, so the planner turns to the index early (see EVENT_CTES).
          ` and t.${item.key} = any(array(select k.${item.key} from ${source} k)) returning 1)`,
      );
    }
  }
  const answers: string[] = [];
  if (appends.length > 0) {
    // Naming `notified` here is what runs its NOTIFY (a plain CTE runs only when read).
    answers.push(
      "select 'moved' as kind, m.id::text as id, null::integer as ord, (select count(*) from notified) as notified, " +
        `${NO_TASK_COLUMNS} from moved m`,
    );
  }
  if (starts.length > 0) answers.push(START_ANSWERS);
  const select = answers.length > 0 ? answers.join("\nunion all\n") : "select null::text as kind where false";
  return { sql: `with ${ctes.join(",\n")}\n${select}`, params };
}

/** The task row moves from the append's `prev_seq` to its last event (several events move it once). */
function taskRowOf(append: NumberedAppend) {
  return {
    task_id: append.taskId,
    prev_seq: append.prevSeq,
    last_seq: append.prevSeq + append.events.length,
    snapshot: append.snapshot,
    state: append.snapshot.status.state,
    terminal: isTerminalState(append.snapshot.status.state),
    status_at: statusAtOf(append.snapshot),
  };
}

function eventRowsOf(append: NumberedAppend) {
  return append.events.map((event) => ({
    task_id: append.taskId,
    seq: event.seq,
    event: event.event,
    result: event.result,
    created_at: new Date(event.createdAt).toISOString(),
  }));
}

function pick(row: Row, columns: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const column of columns) out[column] = row[column] ?? null;
  return out;
}
