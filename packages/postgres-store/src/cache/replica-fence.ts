import type { Database, Queryable, QueryResult } from "../database.js";
import { RetriedListen } from "./retried-listen.js";

/** Options of `ReplicaFence`. */
export interface ReplicaFenceOptions {
  /**
   * The channel your tables' triggers NOTIFY on when they commit a change, with the writing transaction's
   * id as the payload (`perform pg_notify('<channel>', pg_current_xact_id()::text)`; see the README).
   */
  channel: string;
  /** How long to wait before trying LISTEN again when it could not start. Default 5000 ms. */
  retryMs?: number;
  /** LISTEN (or the primary's snapshot after it) could not be had; meanwhile `read` answers nothing. */
  onUnavailable?: (error: unknown) => void;
}

const XMIN_COLUMN = "__fence_xmin";
const ROW_COLUMN = "__fence_row";

/**
 * Reads on the replica that are never older than the last change this process was told of. Each change
 * to the watched tables announces its transaction id on `channel` (from the primary, through the
 * `LISTEN` connection); a replica statement's answer is used only when its own snapshot (taken in the
 * same statement) shows every such transaction as ended, and every transaction the primary had begun
 * when this process began to listen. Otherwise `read` answers undefined and the caller asks the
 * primary: a replica that lags or stopped replaying is never trusted past a change this process has
 * heard of. The primary is asked for one number each time LISTEN starts, never per read.
 *
 * The test is the snapshot's xmin (every transaction id below it had ended): a standby's
 * `pg_current_snapshot()` lists no running ids, but its xmin is exact. So a transaction left open on the
 * primary also holds reads on the primary once a change announced after it began, until it ends.
 *
 * What it cannot see: a change whose notification has not reached this process yet (milliseconds after
 * its commit; while the LISTEN connection is silently dead, until its heartbeat gives it up).
 */
export class ReplicaFence {
  private readonly db: Database;
  private readonly feed: RetriedListen;
  /** The xmin a replica snapshot must have reached; undefined: nothing on the replica is trusted. */
  private floor: bigint | undefined;
  /** The highest announced id + 1: a baseline asked for meanwhile may predate it, the floor may not. */
  private heard = 0n;
  /** Grows whenever `floor` is dropped; a baseline asked for before that is not used. */
  private epoch = 0;

  constructor(db: Database, options: ReplicaFenceOptions) {
    this.db = db;
    const events = { onLost: () => this.forget(), onReconnect: () => void this.baseline() };
    this.feed = new RetriedListen(
      db,
      options,
      (payload) => this.announced(payload),
      events,
      () => this.baseline(),
    );
  }

  /** Whether replica answers can be trusted now (LISTEN up and the primary's baseline known). */
  get trusted(): boolean {
    return this.floor !== undefined && this.db.replica !== undefined;
  }

  /** Starts listening (retried every `retryMs` until it works); without a replica, does nothing. */
  async start(): Promise<void> {
    if (this.db.replica) await this.feed.start();
  }

  async close(): Promise<void> {
    const stopped = this.feed.close();
    this.forget();
    await stopped;
  }

  /**
   * Runs `read` on the replica; its result when every statement it ran saw every announced change, else
   * undefined (also when the replica failed, or when not trusted): then read the primary. `read` must
   * only select (each statement is wrapped to return its snapshot's xmin alongside its rows).
   */
  async read<T>(read: (replica: Queryable) => Promise<T>): Promise<T | undefined> {
    const replica = this.db.replica;
    if (!replica || !this.trusted) return undefined;
    let oldest: bigint | undefined;
    const fenced: Queryable = {
      async query<Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
        const { rows } = await replica.query<Record<string, unknown>>(wrap(sql), params);
        const xmin = parseXid(String(rows[0]?.[XMIN_COLUMN]));
        if (xmin === undefined) throw new Error("the replica gave no snapshot");
        if (oldest === undefined || xmin < oldest) oldest = xmin;
        const found = rows.filter((row) => row[ROW_COLUMN] !== null).map(unwrap) as Row[];
        return { rows: found, rowCount: found.length };
      },
      exec() {
        return Promise.reject(new Error("a fenced replica read runs only queries"));
      },
    };
    let result: T;
    try {
      result = await read(fenced);
    } catch {
      return undefined;
    }
    // Compared now, after the read: an announcement heard while it ran counts against it.
    return oldest !== undefined && this.floor !== undefined && oldest >= this.floor ? result : undefined;
  }

  private announced(payload: string): void {
    const xid = parseXid(payload);
    if (xid === undefined) {
      // Not an id: a fresh baseline covers it (it committed before its notification came).
      void this.baseline();
      return;
    }
    if (xid + 1n > this.heard) this.heard = xid + 1n;
    if (this.floor !== undefined && xid + 1n > this.floor) this.floor = xid + 1n;
  }

  /**
   * Untrusted until the primary says what the replica must show: its snapshot's xmax once LISTEN runs
   * (every transaction that had begun by then, so every change no notification will announce).
   */
  private async baseline(): Promise<void> {
    const epoch = ++this.epoch;
    this.floor = undefined;
    try {
      const { rows } = await this.db.query<{ xmax: string }>(
        "select pg_snapshot_xmax(pg_current_snapshot())::text as xmax",
      );
      const xmax = parseXid(rows[0]?.xmax ?? "");
      if (xmax === undefined) throw new Error("the primary gave no snapshot");
      if (epoch !== this.epoch || this.feed.closed) return;
      // bigint: no Math.max. Announcements heard meanwhile may be newer than the snapshot.
      this.floor = xmax;
      if (this.heard > xmax) this.floor = this.heard;
    } catch (error) {
      if (epoch !== this.epoch) return;
      this.feed.report(error);
      // Tried again while LISTEN still runs; a lost connection starts over through onReconnect.
      this.feed.retryLater(() => {
        if (epoch === this.epoch) void this.baseline();
      });
    }
  }

  /** LISTEN dropped (or closing): changes may pass unannounced, so nothing on the replica is trusted. */
  private forget(): void {
    this.epoch++;
    this.floor = undefined;
  }
}

/** A transaction id as text (`xid8`); undefined for anything else. */
function parseXid(text: string): bigint | undefined {
  return /^\d{1,20}$/.test(text) ? BigInt(text) : undefined;
}

/**
 * `sql` with its snapshot's xmin on every row, and one row (marked by a null row number) when
 * it finds none: the snapshot and the rows come from one statement, so they are one point in time.
 */
function wrap(sql: string): string {
  return `select f.${XMIN_COLUMN}, q.*
    from (select pg_snapshot_xmin(pg_current_snapshot())::text as ${XMIN_COLUMN}) f
    left join lateral (select row_number() over () as ${ROW_COLUMN}, i.* from (${sql}) i) q on true
    order by q.${ROW_COLUMN}`;
}

function unwrap(row: Record<string, unknown>): Record<string, unknown> {
  const { [XMIN_COLUMN]: _xmin, [ROW_COLUMN]: _row, ...rest } = row;
  return rest;
}
