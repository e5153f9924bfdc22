import type { PGliteInterface } from "@electric-sql/pglite";
import type { Database } from "../database.js";
import type { PGliteAutovacuumOptions } from "./pglite-autovacuum.js";
import type { PGliteCheckpointsOptions } from "./pglite-checkpointer.js";
import { pgliteConnection } from "./pglite-connection.js";
import { type PGliteMaintenance, startPGliteMaintenance } from "./pglite-maintenance.js";

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

/**
 * A Database over an existing PGlite instance. PGlite is a single connection: its `transaction()`
 * already serialises transactions and queries, and LISTEN/NOTIFY stay inside this one process.
 */
export function pgliteDatabase(instance: PGliteInterface, options: PGliteDatabaseOptions = {}): Database {
  let maintenance: PGliteMaintenance | undefined;
  const db = pgliteConnection(instance, options.closeInstance ?? true, async () => maintenance?.stop());
  // close() stops it; the check covers an instance its owner closed (closeInstance: false).
  maintenance = startPGliteMaintenance(db, options, () => !instance.closed);
  return db;
}
