import {
  applyTaskEvent,
  type EventLog,
  isTerminalState,
  type NewTaskEvent,
  type StoredTaskEvent,
  type Task,
} from "@a2a-partner/a2a-core";
import type { Database } from "./database.js";
import { isUuid, sqlTimestamp, TASK_EVENT_COLUMNS, type TaskEventRow, toStoredEvent } from "./rows.js";

/** The channel appends NOTIFY on; the payload is `<taskId> <seq>`. */
export const TASK_EVENTS_CHANNEL = "a2a_task_events";

export interface PostgresEventLogOptions {
  /**
   * How often the waiting tasks' newest sequence numbers are re-read, in case a notification was lost.
   * One query covers every waiter of this instance, however many streams are open. Default 5000 ms.
   */
  recheckIntervalMs?: number;
}

const DEFAULT_READ_LIMIT = 1000;

interface Waiter {
  afterSeq: number;
  wake(): void;
}

/**
 * The task event log in PostgreSQL (or PGlite). Appends serialise per task on the task row's lock and
 * NOTIFY inside their transaction, so the wake-up goes out exactly when the event becomes visible, to
 * every process listening on this database. Each instance shares one LISTEN among all its waiters.
 */
export class PostgresEventLog implements EventLog {
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly recheckIntervalMs: number;
  private listening: Promise<void> | undefined;
  private stopListening: (() => Promise<void>) | undefined;
  private sweepTimer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly db: Database,
    options: PostgresEventLogOptions = {},
  ) {
    this.recheckIntervalMs = Math.max(10, options.recheckIntervalMs ?? 5_000);
  }

  async append(taskId: string, entry: NewTaskEvent): Promise<StoredTaskEvent | undefined> {
    if (!isUuid(taskId)) throw new Error(`unknown task ${JSON.stringify(taskId)}`);
    const createdAt = sqlTimestamp(entry.createdAt, "createdAt");
    return this.db.transaction(async (tx) => {
      // The row lock orders concurrent appends to one task: each sees its predecessor's last_seq.
      const locked = await tx.query<{ snapshot: Task; last_seq: number; terminal: boolean }>(
        "select snapshot, last_seq, terminal from tasks where id = $1 for update",
        [taskId],
      );
      const current = locked.rows[0];
      if (!current) throw new Error(`unknown task ${taskId}`);
      if (current.terminal) return undefined;
      const seq = current.last_seq + 1;
      const snapshot = applyTaskEvent(current.snapshot, entry.result);
      const inserted = await tx.query<TaskEventRow>(
        `insert into task_events (task_id, seq, event, result, created_at)
          values ($1, $2, $3, $4::jsonb, $5::timestamptz)
          returning ${TASK_EVENT_COLUMNS}`,
        [taskId, seq, entry.event, JSON.stringify(entry.result), createdAt],
      );
      await tx.query(
        `update tasks set snapshot = $2::jsonb, state = $3, terminal = $4, last_seq = $5, updated_at = now()
          where id = $1`,
        [taskId, JSON.stringify(snapshot), snapshot.status.state, isTerminalState(snapshot.status.state), seq],
      );
      await tx.query("select pg_notify($1, $2)", [TASK_EVENTS_CHANNEL, `${taskId.toLowerCase()} ${seq}`]);
      const row = inserted.rows[0];
      if (!row) throw new Error(`event ${seq} of task ${taskId} was not stored`);
      return toStoredEvent(row);
    });
  }

  async readAfter(taskId: string, afterSeq: number, limit = DEFAULT_READ_LIMIT): Promise<StoredTaskEvent[]> {
    if (!isUuid(taskId)) return [];
    const after = Number.isFinite(afterSeq) ? Math.max(0, Math.floor(afterSeq)) : 0;
    const max = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : DEFAULT_READ_LIMIT;
    if (max === 0) return [];
    const { rows } = await this.db.query<TaskEventRow>(
      `select ${TASK_EVENT_COLUMNS} from task_events where task_id = $1 and seq > $2 order by seq limit $3`,
      [taskId, after, max],
    );
    return rows.map(toStoredEvent);
  }

  async waitForEvents(taskId: string, afterSeq: number, signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    // LISTEN before the first read: an append committed after that read is then sure to wake us. If
    // LISTEN fails, the periodic re-read below still ends the wait.
    await this.ensureListening().catch(() => undefined);
    signal.throwIfAborted();
    const key = taskId.toLowerCase(); // notifications carry the canonical (lower-case) spelling
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        signal.removeEventListener("abort", onAbort);
        const set = this.waiters.get(key);
        set?.delete(waiter);
        if (set?.size === 0) this.waiters.delete(key);
        finish();
      };
      const onAbort = () => settle(() => reject(signal.reason));
      const waiter: Waiter = { afterSeq, wake: () => settle(resolve) };
      // An append that committed between the caller's last read and this registration sent its NOTIFY
      // before anyone waited for it: one read closes that gap.
      const checkNow = async () => {
        try {
          const newest = await this.newestSeq(taskId);
          if (newest === undefined || newest > afterSeq) settle(resolve);
        } catch {
          settle(resolve); // a spurious wake-up: the caller's next read reports what is wrong
        }
      };
      let set = this.waiters.get(key);
      if (!set) {
        set = new Set();
        this.waiters.set(key, set);
      }
      set.add(waiter);
      signal.addEventListener("abort", onAbort, { once: true });
      this.ensureSweep();
      void checkNow();
    });
  }

  /** Stops this instance's LISTEN. Waiters still pending end on their next periodic re-read. */
  async close(): Promise<void> {
    clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    const stop = this.stopListening;
    this.stopListening = undefined;
    this.listening = undefined;
    await stop?.();
  }

  /** One periodic sweep for all waiters, running only while there are any. */
  private ensureSweep(): void {
    if (this.sweepTimer) return;
    this.sweepTimer = setInterval(() => void this.sweep(), this.recheckIntervalMs);
    this.sweepTimer.unref?.();
  }

  /** Wakes every waiter whose task moved past its sequence number (or vanished), in one query. */
  private async sweep(): Promise<void> {
    if (this.waiters.size === 0) {
      clearInterval(this.sweepTimer);
      this.sweepTimer = undefined;
      return;
    }
    const ids = [...this.waiters.keys()].filter(isUuid);
    try {
      const { rows } = await this.db.query<{ id: string; last_seq: number }>(
        "select id, last_seq from tasks where id = any($1::uuid[])",
        [ids],
      );
      const newest = new Map(rows.map((row) => [String(row.id).toLowerCase(), row.last_seq]));
      for (const [taskId, set] of [...this.waiters.entries()]) {
        const seq = newest.get(taskId);
        for (const waiter of [...set]) if (seq === undefined || seq > waiter.afterSeq) waiter.wake();
      }
    } catch {
      // Unreachable database: wake everyone; each caller's next read reports the failure (a stream then
      // ends cleanly and its client reattaches, perhaps to an instance that can reach the database).
      this.wakeAll();
    }
  }

  /** The newest sequence number of the task, or undefined when there is no such task. */
  private async newestSeq(taskId: string): Promise<number | undefined> {
    if (!isUuid(taskId)) return undefined;
    const { rows } = await this.db.query<{ last_seq: number }>("select last_seq from tasks where id = $1", [taskId]);
    return rows[0]?.last_seq;
  }

  private ensureListening(): Promise<void> {
    this.listening ??= this.db
      .listen(TASK_EVENTS_CHANNEL, (payload) => this.onNotification(payload), {
        onReconnect: () => this.wakeAll(),
      })
      .then(
        (stop) => {
          this.stopListening = stop;
        },
        (error: unknown) => {
          this.listening = undefined; // the next waiter tries again
          throw error;
        },
      );
    return this.listening;
  }

  private onNotification(payload: string): void {
    const [taskId = "", seqText = ""] = payload.split(" ");
    const set = this.waiters.get(taskId.toLowerCase());
    if (!set) return;
    const seq = Number(seqText);
    for (const waiter of [...set]) {
      if (!Number.isFinite(seq) || seq > waiter.afterSeq) waiter.wake();
    }
  }

  private wakeAll(): void {
    for (const set of [...this.waiters.values()]) for (const waiter of [...set]) waiter.wake();
  }
}
