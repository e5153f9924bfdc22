import type { PGliteInterface, Results, Transaction } from "@electric-sql/pglite";
import { type Database, type Queryable, type QueryOptions, type QueryResult, quoteChannel } from "../database.js";
import { PGlitePreparedStatements } from "./pglite-prepared.js";

function toResult<Row>(result: Results<Row>): QueryResult<Row> {
  return { rows: result.rows, rowCount: result.rowCount ?? result.affectedRows ?? result.rows.length };
}

/** A Queryable over PGlite's own transaction handle. */
function transactionQueryable(tx: Transaction): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      return toResult(await tx.query<Row>(sql, [...params]));
    },
    async exec(sql: string) {
      await tx.exec(sql);
    },
  };
}

/**
 * A Database over an existing PGlite instance, and nothing else (`pgliteDatabase` adds the maintenance
 * stand-ins; the PGlite worker thread uses this alone, so it loads nothing of a2a-core). `beforeClose`
 * runs once, first, when it closes.
 */
export function pgliteConnection(
  instance: PGliteInterface,
  closeInstance: boolean,
  beforeClose?: () => Promise<void>,
): Database {
  let closed = false;
  // Statements with a name are parsed and planned once, as on PostgreSQL (outside transactions only: the
  // hot path's statements are single statements).
  const prepared = PGlitePreparedStatements.for(instance);
  const db: Database = {
    kind: "pglite",
    async query<Row>(sql: string, params: readonly unknown[] = [], queryOptions?: QueryOptions) {
      const named = queryOptions?.name ? await prepared?.query<Row>(queryOptions.name, sql, params) : undefined;
      return toResult(named ?? (await instance.query<Row>(sql, [...params])));
    },
    async exec(sql: string) {
      await instance.exec(sql);
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return instance.transaction((tx) => fn(transactionQueryable(tx)));
    },
    async listen(channel, onPayload) {
      quoteChannel(channel); // validates; PGlite splices the name into LISTEN itself
      // PGlite keeps one LISTEN per channel however many callbacks share it, and UNLISTENs after the
      // last one goes; there is no connection to lose, so neither onReconnect nor onLost ever fires.
      const stop = await instance.listen(channel, onPayload);
      let stopped = false;
      return async () => {
        if (stopped || instance.closed) return;
        stopped = true;
        await stop();
      };
    },
    async notify(channel, payload) {
      await instance.query("select pg_notify($1, $2)", [channel, payload]);
    },
    async close() {
      if (closed) return;
      closed = true;
      await beforeClose?.();
      if (closeInstance && !instance.closed) await instance.close();
    },
  };
  return db;
}
