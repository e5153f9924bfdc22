import type { Client, ClientBase, Pool, PoolClient } from "pg";
import type { Database, Queryable, QueryOptions, QueryResult } from "../database.js";
import { PgListener } from "./pg-listener.js";

export interface PgDatabaseOptions {
  /** Whether `QueryOptions.name` makes a named prepared statement (false behind a transaction pooler). */
  namedStatements?: boolean;
  /** A pool on a streaming replica: `Database.replica`. Closed with the database. */
  replica?: Pool;
  /**
   * A pool of its own for `background` statements (the group commit). On the main pool a commit would
   * wait for a free connection behind the requests' statements, and each of the few dozen shapes of its
   * statement would be prepared and planned again on every connection it happened to get (PostgreSQL
   * plans a prepared statement five times before it may settle on a generic plan). Closed with the
   * database.
   */
  background?: Pool;
}

function clientQueryable(client: ClientBase | Pool, named: boolean): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = [], options?: QueryOptions): Promise<QueryResult<Row>> {
      const result = await client.query(queryConfig(sql, params, options, named));
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
    },
    async exec(sql: string) {
      // Without parameters node-postgres uses the simple protocol, which runs several statements.
      await client.query(sql);
    },
  };
}

/**
 * A Database over a node-postgres pool. Transactions check out one pool client each; LISTEN runs on
 * one extra dedicated connection made by `createListenerClient` (see PgListener); `background`
 * statements on a pool of their own when given one, and `onWarmConnection` ones there too while it is idle.
 */
export function pgDatabase(pool: Pool, createListenerClient: () => Client, options: PgDatabaseOptions = {}): Database {
  const listener = new PgListener(createListenerClient);
  const named = options.namedStatements ?? true;
  const replicaPool = options.replica;
  const backgroundPool = options.background;
  // Counted here, synchronously: the pool marks a connection taken only on a later tick.
  let backgroundRunning = 0;
  const laneOf = (queryOptions: QueryOptions | undefined): Pool | undefined => {
    if (!backgroundPool) return undefined;
    if (queryOptions?.background) return backgroundPool;
    const quiet = backgroundRunning === 0 && backgroundPool.idleCount > 0;
    return queryOptions?.onWarmConnection && quiet ? backgroundPool : undefined;
  };
  let closing: Promise<void> | undefined;
  return {
    kind: "postgres",
    ...(replicaPool ? { replica: failingFast(clientQueryable(replicaPool, named)) } : {}),
    async query<Row>(
      sql: string,
      params: readonly unknown[] = [],
      queryOptions?: QueryOptions,
    ): Promise<QueryResult<Row>> {
      const background = laneOf(queryOptions);
      if (background) backgroundRunning++;
      try {
        const result = await (background ?? pool).query(queryConfig(sql, params, queryOptions, named));
        // The pool reached the server: if LISTEN is still waiting out its reconnect backoff, it need not.
        listener.reconnectSoon();
        return { rows: result.rows as Row[], rowCount: result.rowCount ?? result.rows.length };
      } finally {
        if (background) backgroundRunning--;
      }
    },
    async exec(sql: string) {
      await pool.query(sql);
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client: PoolClient = await pool.connect();
      let broken: Error | undefined;
      // A session ended while no statement of the transaction runs (its idle limit below, a restart,
      // pg_terminate_backend) comes as the client's 'error' event, which the pool listens to only on
      // idle clients: unheard it would take the process down. The transaction's next statement fails.
      const ended = (error: Error) => {
        broken ??= error;
      };
      client.on("error", ended);
      try {
        await client.query(BEGIN);
        const result = await fn(clientQueryable(client, named));
        await client.query("commit");
        return result;
      } catch (error) {
        await client.query("rollback").catch((rollbackError: unknown) => {
          // A connection that cannot even roll back is not fit to go back into the pool.
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      } finally {
        client.off("error", ended);
        client.release(broken);
      }
    },
    listen(channel, onPayload, options) {
      return listener.listen(channel, onPayload, options?.onReconnect, options?.onLost);
    },
    async notify(channel, payload) {
      await pool.query("select pg_notify($1, $2)", [channel, payload]);
    },
    close() {
      closing ??= (async () => {
        await listener.close();
        await Promise.all([pool.end(), replicaPool?.end(), backgroundPool?.end()]);
      })();
      return closing;
    },
  };
}

/**
 * How long a transaction may wait between its statements before PostgreSQL ends it with its session,
 * unless the session has a limit of its own (a role's setting, the connection's options). A process
 * stopped in the middle of a transaction (SIGSTOP, a frozen VM) would otherwise keep its row locks, and
 * every commit that touches those rows, on every instance, would wait until it ran again.
 */
const IDLE_IN_TRANSACTION_MS = 30_000;
const BEGIN = `begin; select set_config('idle_in_transaction_session_timeout', '${IDLE_IN_TRANSACTION_MS}', true)
 where current_setting('idle_in_transaction_session_timeout') = '0'`;

/** After a replica statement fails, how long its reads fail at once (their callers ask the primary). */
const REPLICA_RETRY_MS = 5_000;

/**
 * A replica whose host stopped answering would hold every read for the pool's connect timeout before its
 * caller fell back to the primary: after a failure, reads fail at once for a while, then one tries again.
 */
function failingFast(replica: Queryable): Queryable {
  let downUntil = 0;
  const guard = async <T>(run: () => Promise<T>): Promise<T> => {
    if (Date.now() < downUntil) throw new Error("the replica failed a moment ago");
    try {
      return await run();
    } catch (error) {
      if (replicaUnreachable(error)) downUntil = Date.now() + REPLICA_RETRY_MS;
      throw error;
    }
  };
  return {
    query: (sql, params, options) => guard(() => replica.query(sql, params, options)),
    exec: (sql) => guard(() => replica.exec(sql)),
  };
}

/** Not an answer of the replica's (a statement it refused) but no replica: a socket error, a connection class SQLSTATE, a shutdown. */
function replicaUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== "string" || !/^[0-9A-Z]{5}$/.test(code)) return true;
  return code.startsWith("08") || code.startsWith("57");
}

/** A statement as node-pg sends it: named where it may be, else its pooled form if it has one. */
function queryConfig(sql: string, params: readonly unknown[], options: QueryOptions | undefined, named: boolean) {
  if (named && options?.name) return { name: options.name, text: sql, values: [...params] };
  return { text: (!named && options?.pooledSql) || sql, values: [...params] };
}
