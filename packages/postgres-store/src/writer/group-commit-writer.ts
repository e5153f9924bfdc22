import {
  type AppendDependencies,
  type CreateOrGetResult,
  checkNumberedAppend,
  DependencyFailedError,
  type NewTask,
  type NumberedAppend,
} from "@a2a-partner/a2a-core";
import type { SpanContext } from "@opentelemetry/api";
import type { Database } from "../database.js";
import { isUuid } from "../is-uuid.js";
import { type HandedRow, handedDeliveries } from "../push/handed-deliveries.js";
import { deliveryTakerOf, handDeliveries, wakeLocalDeliveries } from "../push/push-wakeups.js";
import { isRowError } from "../tasks/data-error.js";
import type { StartTaskResult } from "../tasks/insert-task.js";
import { sqlTimestamp } from "../tasks/rows.js";
import { type TaskFollowers, taskFollowersOf } from "../tasks/task-followers.js";
import { storeTelemetry } from "../telemetry/store-telemetry.js";
import { cutBatch } from "./batch-cut.js";
import { type AnswerRow, batchSize, batchStatement, checkIdentifiers, type GroupCommitRow } from "./batch-statement.js";
import { type BatchedStart, batchedStart, type StartAnswerRow, startResultOf } from "./batched-starts.js";
import { DEADLOCK_ATTEMPTS, isDeadlock, UnserializableItemError } from "./commit-errors.js";
import type { GroupCommitWriterOptions } from "./group-commit-writer-options.js";
import { type DependentItem, ItemDependencies, type ItemOutcome } from "./item-dependencies.js";

export type { GroupCommitWriterOptions } from "./group-commit-writer-options.js";

interface Waiting<T> extends DependentItem {
  resolve(value: T): void;
  reject(error: unknown): void;
  /** The span the write was asked for in (when traced): the commit's span links back to it. */
  caller?: SpanContext | undefined;
}

const STORED: ItemOutcome = { ok: true };

type Item =
  | ({ kind: "append"; append: NumberedAppend } & Waiting<boolean>)
  | ({ kind: "start"; start: BatchedStart } & Waiting<StartTaskResult>)
  | ({ kind: "insert"; table: string; columns: readonly string[]; rows: readonly GroupCommitRow[] } & Waiting<void>)
  | ({
      kind: "update";
      table: string;
      key: string;
      columns: readonly string[];
      rows: readonly GroupCommitRow[];
    } & Waiting<void>);

/**
 * One writer per process (group commit). Whatever is asked of it while a commit is in flight — events of
 * any number of tasks, task starts, rows of the application's own tables that ride along (`insertRows`,
 * `updateRows`) — goes into the next commit together, as ONE statement: the events, every table's rows (one multi-row insert or update per
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
  /** Tasks whose streams another process follows: their events ride the commit's notification. */
  private readonly followers: TaskFollowers;
  private readonly telemetry = storeTelemetry();
  /** What the queued items depend on; a dependency that settles lets the items waiting on it go. */
  private readonly dependencies = new ItemDependencies<Item>(() => this.schedule());

  constructor(
    private readonly db: Database,
    options: GroupCommitWriterOptions = {},
  ) {
    this.maxInFlight = Math.max(1, options.maxCommitsInFlight ?? (db.inWorker ? 2 : 1));
    this.followers = taskFollowersOf(db);
    // Answering a commit's callers (their SSE frames, their executors' next steps) takes this thread a while;
    // a database on a worker thread would sit idle through it. On this thread's own database (PGlite on
    // the main thread) the next commit would instead run before those answers and hold them up.
    this.nextBeforeAnswers = db.inWorker === true;
  }

  /**
   * Stores an owner-numbered event (see EventLog.appendNumbered): true once durable, false if refused.
   * With `dependsOn` it goes into a commit only once each of those writes has succeeded or is in the same
   * commit (the writer's own items, asked for before it); meanwhile later items may pass it. When one of
   * them fails, it is refused with a `DependencyFailedError`.
   */
  appendNumbered(append: NumberedAppend, dependsOn?: AppendDependencies): Promise<boolean> {
    if (!isUuid(append.taskId)) return Promise.reject(new Error(`unknown task ${JSON.stringify(append.taskId)}`));
    try {
      checkNumberedAppend(append);
      for (const event of append.events) sqlTimestamp(event.createdAt, "createdAt");
    } catch (error) {
      return Promise.reject(error);
    }
    const depending = dependsOn?.length ? { dependsOn } : {};
    return this.enqueue<boolean>((waiting) => ({ kind: "append", append, ...depending, ...waiting }));
  }

  /**
   * Whether a commit is under way or tasks' events wait for the next: a start asked for now is better off
   * joining them (`startTask`). Rows alone waiting (an application's last records of a task) do not count:
   * a start on an otherwise quiet server goes out on its own.
   */
  get busy(): boolean {
    return this.inFlight > 0 || this.queue.some((item) => item.kind === "append");
  }

  /**
   * Starts a task with the next commit, as the start statement would: the created task, the one
   * `messageId` already names in the workspace, or undefined when a start of the same key in the same
   * commit took it (ask again). For a start asked for while the writer is busy: one of its own would wait
   * for the commit under way (PGlite's one connection; PostgreSQL's WAL flush) and then pay for a
   * statement and a commit of its own.
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
   * Inserts rows of any table of yours with the next commit: they ride the same statement (and
   * transaction) as the task events committed with them, in the order asked for, and the promise resolves
   * once that commit has. Identifiers are checked against a strict pattern; values travel as one JSON
   * parameter per table (a jsonb column takes the value itself, a Date its ISO text). Rows of one table
   * and column list become one multi-row INSERT, so the table's statement triggers fire once per commit.
   * A row the database refuses fails its own call only: the batch is then committed item by item.
   */
  insertRows(table: string, columns: readonly string[], rows: readonly GroupCommitRow[]): Promise<void> {
    const invalid = checkIdentifiers([table, ...columns]);
    if (invalid) return Promise.reject(invalid);
    if (rows.length === 0) return Promise.resolve();
    return this.enqueue<void>((waiting) => ({ kind: "insert", table, columns, rows, ...waiting }));
  }

  /**
   * Sets `columns` of the rows of `table` whose `key` matches, with the next commit (as `insertRows`).
   * With `dependsOn`, only once those writes succeeded or in their commit (as `appendNumbered`).
   * A row inserted in the same commit is not seen: await its insert first.
   */
  updateRows(
    table: string,
    key: string,
    columns: readonly string[],
    rows: readonly GroupCommitRow[],
    dependsOn?: AppendDependencies,
  ): Promise<void> {
    const invalid = checkIdentifiers([table, key, ...columns]);
    if (invalid) return Promise.reject(invalid);
    if (rows.length === 0) return Promise.resolve();
    const depending = dependsOn?.length ? { dependsOn } : {};
    return this.enqueue<void>((waiting) => ({ kind: "update", table, key, columns, rows, ...depending, ...waiting }));
  }

  private enqueue<T>(make: (waiting: Waiting<T>) => Item): Promise<T> {
    const caller = this.telemetry.callerSpanContext();
    let item: Item | undefined;
    const promise = new Promise<T>((resolve, reject) => {
      item = make({ resolve, reject, caller } as Waiting<T>);
      this.queue.push(item);
    });
    if (item) this.dependencies.own(promise, item);
    this.schedule();
    return promise;
  }

  private schedule(): void {
    if (!this.scheduled && this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      this.scheduled = true;
      // One turn of the event loop lets what is being asked right now join the same commit.
      setImmediate(() => {
        this.scheduled = false;
        this.startCommits();
      });
    }
  }

  /** Starts commits while there is work and room; each one finished makes room for the next batch. */
  private startCommits(): void {
    while (this.queue.length > 0 && this.inFlight < this.maxInFlight) {
      const batch = this.takeBatch();
      // Only items waiting on their dependencies: a dependency settling, or a commit ending, looks again.
      if (batch.length === 0) break;
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
        this.rejectAll(batch, error);
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
        const failed = item.dependsOn && (await this.dependencies.failureOf(item));
        if (failed) this.rejectAll([item], new DependencyFailedError(failed.error));
        else await this.commitRetryingDeadlocks([item]).catch((alone: unknown) => this.rejectAll([item], alone));
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

  /** The next commit's items, in order (see `cutBatch`); the rest wait for a later one. */
  private takeBatch(): Item[] {
    const batch: Item[] = [];
    const rest: Item[] = [];
    cutBatch(this.queue, batch, rest);
    this.queue = rest;
    return batch.some((item) => item.dependsOn) ? this.withDependenciesMet(batch) : batch;
  }

  /**
   * The batch without the items whose dependencies are not met: one whose dependency failed is refused,
   * one whose dependency is still under way waits at the head of the queue for a later commit.
   */
  private withDependenciesMet(batch: Item[]): Item[] {
    const taken = new Set<Item>();
    const waiting: Item[] = [];
    for (const item of batch) {
      const verdict = item.dependsOn ? this.dependencies.verdict(item, taken) : undefined;
      if (!verdict || verdict.met) taken.add(item);
      else if (verdict.failed) this.rejectAll([item], new DependencyFailedError(verdict.failed.error));
      else waiting.push(item);
    }
    if (waiting.length > 0) this.queue = [...waiting, ...this.queue];
    return [...taken];
  }

  private async commit(batch: Item[], committed?: () => void): Promise<void> {
    let statement: { sql: string; params: unknown[]; name?: string };
    // This process's dispatcher, if it takes deliveries: the batch claims the free ones for it.
    const taker = deliveryTakerOf(this.db);
    try {
      statement = batchStatement(batch, taker && { owner: taker.owner, leaseMs: taker.leaseMs }, this.followers);
    } catch (error) {
      throw new UnserializableItemError(error);
    }
    const { sql, params, name } = statement;
    const span = this.telemetry.startWrite(
      "group_commit",
      this.db.kind,
      batch.map((item) => item.caller),
    );
    const startedAt = performance.now();
    let rows: AnswerRow[];
    try {
      ({ rows } = await this.db.query<AnswerRow>(sql, params, { name, background: true }));
    } catch (error) {
      this.telemetry.endWrite("group_commit", span, startedAt, undefined, error);
      throw error;
    }
    const moved = new Set<string>();
    const started = new Map<number, StartAnswerRow>();
    let created = 0;
    let pushed = false;
    let handed: HandedRow[] = [];
    for (const row of rows) {
      if (row.kind === "moved") moved.add(row.id.toLowerCase());
      else if (row.kind === "pushed") pushed = true;
      else if (row.kind === "handed") handed = row.handed;
      else {
        started.set(row.ord, row);
        if (row.kind === "created") created++;
      }
    }
    this.telemetry.endWrite("group_commit", span, startedAt, batchSize(batch, created));
    // Stored, before the next batch is formed (`committed` may form it now): items may depend on these.
    for (const item of batch) this.dependencies.ended(item, STORED);
    committed?.();
    let ord = 0;
    for (const item of batch) {
      if (item.kind === "append") item.resolve(moved.has(item.append.taskId.toLowerCase()));
      else if (item.kind === "start") item.resolve(startResultOf(started.get(ord++), item.start));
      else item.resolve();
    }
    // After the callers' answers (their streams' frames go first); before the NOTIFY is back here.
    if (pushed) wakeLocalDeliveries(this.db);
    if (taker && handed.length > 0) {
      const appends = batch.flatMap((item) => (item.kind === "append" ? [item.append] : []));
      const starts = batch.flatMap((item) => (item.kind === "start" ? [item.start.input] : []));
      // Queued behind the callers' continuations, which the answers above have just queued.
      queueMicrotask(() => handDeliveries(taker, () => handedDeliveries(handed, appends, starts)));
    }
  }

  private rejectAll(items: Item[], error: unknown): void {
    const failed: ItemOutcome = { ok: false, error };
    for (const item of items) {
      this.dependencies.ended(item, failed);
      item.reject(error);
    }
  }
}
