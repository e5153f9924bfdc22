/**
 * The one small query interface every store in this package runs on. Two implementations: PGlite
 * (embedded PostgreSQL in WASM) and node-postgres (a `pg.Pool`). Both speak the same SQL dialect and
 * hand back the same row values: `timestamptz` as `Date`, `jsonb` parsed, `int8` as a number (a
 * `bigint` beyond 2^53), `bytea` as a `Uint8Array`, sessions in the UTC time zone.
 */
export interface QueryResult<Row> {
  rows: Row[];
  rowCount: number;
}

export interface QueryOptions {
  /**
   * A name for a statement on the hot path: PostgreSQL then parses and plans it once per connection
   * instead of on every call. One name, one SQL text, always; never name statements built at run time.
   * On PGlite too (outside a transaction), where planning in WASM is a large part of a statement's cost.
   */
  name?: string;
  /**
   * What to send instead of a named statement's text where statements cannot be named (behind a
   * transaction pooler): the same statement as a call of a database function (created by a migration),
   * whose plan PostgreSQL keeps for the server session, so it is not parsed and planned on every call.
   * Same parameters, same result rows. Ignored where `name` is used, and on PGlite.
   */
  pooledSql?: string;
  /**
   * No reply waits on this statement at once (a group commit, a vacuum pass). On PostgreSQL
   * (`openDatabase`) it runs on connections kept for such statements, never queued behind the requests'
   * statements for a connection of the pool. PGlite has one connection and runs every statement in the
   * order asked for, so there it changes nothing.
   */
  background?: boolean;
  /**
   * A statement a reply waits on, sent alone on a quiet server (a task's start). On PostgreSQL
   * (`openDatabase`) it runs on a `background` connection while no background statement is running,
   * else on the pool like any other: on a quiet server those are the connections the last commits used,
   * and a backend asked again moments after its last statement answers sooner than one idle since the
   * previous request (a task's first event ~20 % sooner in bench/NOTES.md); under load the group commit
   * keeps them busy, and such statements never queue behind it. Changes nothing on PGlite.
   */
  onWarmConnection?: boolean;
}

export interface Queryable {
  /** Runs one parameterised statement (`$1`, `$2` …). Values are never spliced into the SQL text. */
  query<Row = Record<string, unknown>>(
    sql: string,
    params?: readonly unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<Row>>;
  /**
   * Runs a script of several statements that take no parameters (a migration file). Never pass it text
   * that contains values from outside.
   */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  readonly kind: "pglite" | "postgres";
  /**
   * A streaming replica (`openDatabase`'s `readUrl`), when there is one. It lags the primary by a moment,
   * or by much longer when its replay stalls: read there only what is final once written (an ended
   * task), or what may be a moment old (metrics), or first check it has replayed the primary's
   * `pg_current_wal_insert_lsn()` (`pg_last_wal_replay_lsn()` on the replica), as the task store's ListTasks does.
   */
  readonly replica?: Queryable;
  /**
   * Statements execute on a worker thread, one at a time and in the order they were asked for (PGlite
   * in a worker, `openDatabase`'s embedded default). The group commit writer then keeps the next commit
   * queued behind the one executing, so the database never waits for this thread between commits.
   */
  readonly inWorker?: boolean;
  /**
   * Runs `fn` inside one transaction: committed if it resolves, rolled back if it throws. Use only `tx`
   * inside `fn`: PGlite has a single connection, so a query on the database itself would wait for the
   * transaction that waits for it. On PostgreSQL a transaction that waits 30 s between its statements is
   * ended by the server, its session with it (the session's own `idle_in_transaction_session_timeout`, if
   * set, instead): a process stopped mid-transaction must not hold its row locks for ever.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * LISTEN on a channel (lower-case letters, digits and `_`); returns a function that stops listening.
   * On PostgreSQL all channels of one Database share one dedicated connection, which reconnects by
   * itself; notifications sent while it was down are lost, so `onReconnect` (if given) is called once it
   * is back: re-read whatever you were waiting for.
   */
  listen(
    channel: string,
    onPayload: (payload: string) => void,
    options?: {
      onReconnect?: () => void;
      /** The listening connection dropped: notifications may be missed until `onReconnect`. */
      onLost?: () => void;
    },
  ): Promise<() => Promise<void>>;
  /** NOTIFY a channel (delivered on commit when called inside a transaction via `tx.query`). */
  notify(channel: string, payload: string): Promise<void>;
  close(): Promise<void>;
}

const CHANNEL = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * LISTEN takes an identifier, not a parameter, so channel names are checked against a strict pattern
 * before they reach SQL (and quoted, so case and keywords can't surprise anyone).
 */
export function quoteChannel(channel: string): string {
  if (!CHANNEL.test(channel)) throw new TypeError(`invalid channel name: ${JSON.stringify(channel)}`);
  return `"${channel}"`;
}
