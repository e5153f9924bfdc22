import type { PGliteInterface, Results, Transaction } from "@electric-sql/pglite";
import { type Database, type Queryable, type QueryOptions, type QueryResult, quoteChannel } from "../database.js";
import type { PGliteAutovacuumOptions } from "./pglite-autovacuum.js";
import type { PGliteCheckpointsOptions } from "./pglite-checkpointer.js";
import { type PGliteMaintenance, startPGliteMaintenance } from "./pglite-maintenance.js";
import { PGlitePreparedStatements } from "./pglite-prepared.js";

export type { PGliteAutovacuumOptions, PGliteCheckpointsOptions };

export interface PGliteDatabaseOptions {
  /** Close the PGlite instance when the Database closes. Default true. */
  closeInstance?: boolean;
  /**
   * PostgreSQL's autovacuum, which PGlite lacks (it has no background processes): every `intervalMs` the
   * tables autovacuum would pick are vacuumed and analyzed, so dead rows are reclaimed and plans follow
   * the tables' sizes. Default on; `false` if you run VACUUM yourself.
   */
  autovacuum?: boolean | PGliteAutovacuumOptions;
  /**
   * PostgreSQL's checkpointer, which PGlite lacks too: every `intervalMs` the WAL written since the last
   * checkpoint is read, and a `CHECKPOINT` runs when PostgreSQL's own rules say one is due
   * (`max_wal_size`, `checkpoint_timeout`), so the WAL is recycled instead of growing without end. Default
   * on; `false` if you run CHECKPOINT yourself.
   */
  checkpoints?: boolean | PGliteCheckpointsOptions;
}

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
 * A Database over an existing PGlite instance. PGlite is a single connection: its `transaction()`
 * already serialises transactions and queries, and LISTEN/NOTIFY stay inside this one process.
 */
export function pgliteDatabase(instance: PGliteInterface, options: PGliteDatabaseOptions = {}): Database {
  const closeInstance = options.closeInstance ?? true;
  let closed = false;
  // Statements with a name are parsed and planned once, as on PostgreSQL (outside transactions only: the
  // hot path's statements are single statements).
  const prepared = PGlitePreparedStatements.for(instance);
  let maintenance: PGliteMaintenance | undefined;
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
      await maintenance?.stop();
      if (closeInstance && !instance.closed) await instance.close();
    },
  };
  // close() stops it; the check covers an instance its owner closed (closeInstance: false).
  maintenance = startPGliteMaintenance(db, options, () => !instance.closed);
  return db;
}
