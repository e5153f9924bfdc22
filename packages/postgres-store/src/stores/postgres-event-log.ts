import type {
  AppendDependencies,
  CarriedEvents,
  EventLog,
  NewTaskEvent,
  NumberedAppend,
  StoredTaskEvent,
  TaskChangeListener,
  WatchOptions,
} from "@a2a-partner/a2a-core";
import type { Database } from "../database.js";
import { isUuid } from "../is-uuid.js";
import { wakeLocalDeliveries } from "../push/push-wakeups.js";
import { appendEvent } from "../tasks/append-event.js";
import { sqlTimestamp, TASK_EVENT_READ_COLUMNS, type TaskEventRow, toStoredEvent } from "../tasks/rows.js";
import { parseTaskEventsPayload, TASK_EVENTS_CHANNEL } from "../tasks/task-events-channel.js";
import { taskFollowersOf } from "../tasks/task-followers.js";
import { storeTelemetry } from "../telemetry/store-telemetry.js";
import { GroupCommitWriter } from "../writer/group-commit-writer.js";

export { TASK_EVENTS_CHANNEL } from "../tasks/task-events-channel.js";

export interface PostgresEventLogOptions {
  /**
   * How often the watched tasks' newest sequence numbers are re-read, in case a notification was lost.
   * One query covers every watched task of this instance, however many streams are open. Default 5000 ms.
   */
  recheckIntervalMs?: number;
  /** The writer owner-numbered appends go through; by default one of its own. Share it to batch more. */
  writer?: GroupCommitWriter;
}

const DEFAULT_READ_LIMIT = 1000;
/** A task's events after a sequence number; behind a pooler, migration 0009's `a2a_read_events` runs it. */
export const READ_EVENTS_AFTER = `select ${TASK_EVENT_READ_COLUMNS} from task_events e where e.task_id = $1 and e.seq > $2 order by e.seq limit $3`;

/**
 * The task event log in PostgreSQL (or PGlite). Events numbered by a task's runner go through the
 * process's group-commit writer; other appends serialise per task on the task row's lock. Every write
 * NOTIFYs inside its transaction, so the wake-up goes out exactly when the event becomes visible, to
 * every process listening on this database; a group commit's notification carries the events themselves
 * for a task whose streams another process follows, when they are small (task-events-channel.ts,
 * task-followers.ts), and that process sends them on without reading the log. Each instance shares one
 * LISTEN among all its watchers.
 */
export class PostgresEventLog implements EventLog {
  /** Per task, its one watcher (the common case: a Set costs ~0.2 KiB per running task), or a Set. */
  private readonly watchers = new Map<string, Watchers>();
  /**
   * Per watched task, the newest sequence number its watchers have been told (by a notification or a
   * re-check). The re-check asks only for tasks that moved past it (or vanished): it runs every few
   * seconds over every task a process runs or follows, and reading all of them back each time was most
   * of what an idle server allocated.
   */
  private readonly told = new Map<string, number>();
  private readonly recheckIntervalMs: number;
  readonly writer: GroupCommitWriter;
  private listening: Promise<void> | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  /** Hearing which tasks other processes follow: what stops it. */
  private followersHeard: Promise<() => Promise<void>> | undefined;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;
  private sweeping = false;
  private sweepAgain = false;

  constructor(
    private readonly db: Database,
    options: PostgresEventLogOptions = {},
  ) {
    this.recheckIntervalMs = Math.max(10, options.recheckIntervalMs ?? 5_000);
    this.writer = options.writer ?? new GroupCommitWriter(db);
  }

  appendNumbered(append: NumberedAppend, dependsOn?: AppendDependencies): Promise<boolean> {
    return this.writer.appendNumbered(append, dependsOn);
  }

  async append(taskId: string, entry: NewTaskEvent): Promise<StoredTaskEvent | undefined> {
    if (!isUuid(taskId)) throw new Error(`unknown task ${JSON.stringify(taskId)}`);
    const createdAt = sqlTimestamp(entry.createdAt, "createdAt");
    const telemetry = storeTelemetry();
    const span = telemetry.startWrite("append", this.db.kind);
    span?.setAttribute("a2a.task.id", taskId);
    const startedAt = performance.now();
    try {
      const stored = await appendEvent(this.db, taskId, entry, createdAt);
      telemetry.endWrite("append", span, startedAt);
      if (stored?.pushed) wakeLocalDeliveries(this.db);
      return stored?.event;
    } catch (error) {
      telemetry.endWrite("append", span, startedAt, undefined, error);
      throw error;
    }
  }

  async readAfter(taskId: string, afterSeq: number, limit = DEFAULT_READ_LIMIT): Promise<StoredTaskEvent[]> {
    if (!isUuid(taskId)) return [];
    const after = Number.isFinite(afterSeq) ? Math.max(0, Math.floor(afterSeq)) : 0;
    const max = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : DEFAULT_READ_LIMIT;
    if (max === 0) return [];
    const { rows } = await this.db.query<TaskEventRow>(READ_EVENTS_AFTER, [taskId, after, max], {
      name: "a2a_read_events",
      pooledSql: "select * from a2a_read_events($1, $2, $3)",
    });
    return rows.map(toStoredEvent);
  }

  watch(taskId: string, listener: TaskChangeListener, options?: WatchOptions): () => void {
    const key = taskId.toLowerCase(); // notifications carry the canonical (lower-case) spelling
    // Streams following a task another process may run: that process carries its events to us.
    const unfollow = options?.following && isUuid(key) ? taskFollowersOf(this.db).follow(key) : undefined;
    const current = this.watchers.get(key);
    if (current === undefined) this.watchers.set(key, listener);
    else if (current instanceof Set) current.add(listener);
    else if (current !== listener) this.watchers.set(key, new Set([current, listener]));
    // A new watcher has been told nothing yet: the next re-check tells this task's watchers its newest.
    this.told.delete(key);
    // LISTEN is shared and started once; until it runs (or if it cannot), the periodic re-check covers.
    if (!this.listening) void this.ensureListening().catch(() => undefined);
    this.ensureSweep();
    let stopped = false;
    return () => {
      if (stopped) return;
      stopped = true;
      unfollow?.();
      const current = this.watchers.get(key);
      if (current === listener || (current instanceof Set && current.delete(listener) && current.size === 0)) {
        this.watchers.delete(key);
        this.told.delete(key);
      }
    };
  }

  /** Starts this instance's LISTEN now rather than at the first watch (resolves once it runs). */
  listen(): Promise<void> {
    return this.ensureListening();
  }

  /** Stops this instance's LISTEN and the re-check. */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    const stop = this.stopListening;
    this.stopListening = undefined;
    this.listening = undefined;
    const followersHeard = this.followersHeard;
    this.followersHeard = undefined;
    await stop?.();
    await (await followersHeard)?.();
  }

  /** One periodic re-check for all watched tasks, running only while there are any. */
  private ensureSweep(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setInterval(() => void this.sweep(), this.recheckIntervalMs);
    this.sweepTimer.unref?.();
  }

  /**
   * Tells the watchers of every task that moved past what they were told its newest sequence number
   * (undefined: no such task), in one query. The ids and what each was told travel as two text
   * parameters, and only the tasks that changed come back.
   */
  private async sweep(urgent = false): Promise<void> {
    if (this.watchers.size === 0) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
      return;
    }
    if (this.sweeping) {
      // A slow database: a periodic tick is skipped rather than piled up; a check asked for because
      // notifications may have been missed runs right after the one under way.
      if (urgent) this.sweepAgain = true;
      return;
    }
    this.sweeping = true;
    try {
      const ids: string[] = [];
      const told: number[] = [];
      for (const key of this.watchers.keys()) {
        if (!isUuid(key)) continue;
        ids.push(key);
        told.push(this.told.get(key) ?? 0); // 0: told nothing (sequence numbers start at 1)
      }
      if (ids.length === 0) return;
      const { rows } = await this.db.query<{ id: string; last_seq: number | null }>(
        `select w.id, t.last_seq
           from unnest(string_to_array($1, ',')::uuid[], string_to_array($2, ',')::integer[]) as w(id, told)
           left join tasks t on t.id = w.id
          where t.last_seq is distinct from w.told`,
        [ids.join(","), told.join(",")],
        { name: "a2a_recheck_watched" },
      );
      // PostgreSQL writes a uuid in lower case, the spelling the watchers are kept under.
      for (const row of rows) this.tell(String(row.id), row.last_seq ?? undefined);
    } catch {
      // Unreachable database: tell everyone; each watcher's next read reports the failure (a stream then
      // ends cleanly and its client reattaches, perhaps to an instance that can reach the database).
      this.notifyEveryone();
    } finally {
      this.sweeping = false;
      if (this.sweepAgain) {
        this.sweepAgain = false;
        void this.sweep(true);
      }
    }
  }

  private ensureListening(): Promise<void> {
    // Which tasks other processes follow, so that this one's commits carry their events (whoever runs them).
    this.followersHeard ??= taskFollowersOf(this.db).listen();
    this.listening ??= this.db
      .listen(TASK_EVENTS_CHANNEL, (payload) => this.onNotification(payload), {
        // Notifications may be missed from the moment the connection drops: every watched task is
        // checked now, in one query (which fails fast during an outage, and then every watcher hears
        // "read and see", so streams end and their clients reattach), and again once LISTEN is back.
        onLost: () => void this.sweep(true),
        onReconnect: () => void this.sweep(true),
      })
      .then(
        (stop) => {
          this.stopListening = stop;
        },
        (error: unknown) => {
          // The next watcher tries again, both channels.
          this.listening = undefined;
          const followersHeard = this.followersHeard;
          this.followersHeard = undefined;
          void followersHeard?.then((stop) => stop());
          throw error;
        },
      );
    return this.listening;
  }

  private onNotification(payload: string): void {
    for (const { taskId, seq, carried } of parseTaskEventsPayload(payload)) this.tell(taskId, seq, carried);
  }

  /**
   * Tells a task's watchers, if it has any, its newest sequence number (undefined: no such task), and the
   * events the notification carried, if it did.
   */
  private tell(taskId: string, newest: number | undefined, carried?: CarriedEvents): void {
    const watching = this.watchers.get(taskId);
    if (!watching) return;
    if (newest !== undefined && newest > (this.told.get(taskId) ?? 0)) this.told.set(taskId, newest);
    notifyAll(watching, newest, carried);
  }

  private notifyEveryone(): void {
    for (const watching of [...this.watchers.values()]) notifyAll(watching, undefined);
  }
}

type Watchers = TaskChangeListener | Set<TaskChangeListener>;

function notifyAll(watchers: Watchers, newest: number | undefined, carried?: CarriedEvents): void {
  for (const listener of watchers instanceof Set ? [...watchers] : [watchers]) {
    try {
      listener(newest, carried);
    } catch {
      // A watcher's failure is its own; the others still hear of the change.
    }
  }
}
