import type { Queryable } from "../database.js";
import { PGliteAutovacuum, type PGliteAutovacuumOptions } from "./pglite-autovacuum.js";
import { PGliteCheckpointer, type PGliteCheckpointsOptions } from "./pglite-checkpointer.js";

export interface PGliteMaintenanceOptions {
  autovacuum?: boolean | PGliteAutovacuumOptions;
  checkpoints?: boolean | PGliteCheckpointsOptions;
}

/** The running stand-ins; `stop` ends both and waits for work under way. */
export interface PGliteMaintenance {
  stop(): Promise<void>;
}

/**
 * Starts the stand-ins for the background processes PGlite lacks (autovacuum, the checkpointer), each on
 * unless switched off. `db` runs their statements (on a worker database: without holding up its caller).
 */
export function startPGliteMaintenance(
  db: Queryable,
  options: PGliteMaintenanceOptions,
  isOpen: () => boolean,
): PGliteMaintenance {
  const settings = <T extends object>(option: boolean | T | undefined): T | undefined =>
    option === false ? undefined : option === true || option === undefined ? ({} as T) : option;
  const autovacuumOptions = settings(options.autovacuum);
  const checkpointsOptions = settings(options.checkpoints);
  const autovacuum = autovacuumOptions && new PGliteAutovacuum(db, autovacuumOptions, isOpen);
  const checkpointer = checkpointsOptions && new PGliteCheckpointer(db, checkpointsOptions, isOpen);
  return {
    async stop() {
      await Promise.all([autovacuum?.stop(), checkpointer?.stop()]);
    },
  };
}
