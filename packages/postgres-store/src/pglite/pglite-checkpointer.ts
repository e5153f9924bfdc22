import type { PeriodicJob } from "@a2a-partner/a2a-core";
import type { Queryable } from "../database.js";
import { startPGlitePasses } from "./pglite-passes.js";

/** The store's stand-in for PostgreSQL's checkpointer on PGlite (see `PGliteDatabaseOptions.checkpoints`). */
export interface PGliteCheckpointsOptions {
  /** How often the WAL written since the last checkpoint is read (under a millisecond). Default 5 s. */
  intervalMs?: number;
  /** A check or checkpoint that failed (it is tried again at the next interval). Default: ignored. */
  onError?: (error: unknown) => void;
}

export const DEFAULT_CHECKPOINT_INTERVAL_MS = 5_000;

/** Why a checkpoint was due: the WAL written since the last one, or the time since it. */
export type CheckpointCause = "wal" | "time";

/**
 * The checkpointer's two rules, with the server's own settings: WAL since the last checkpoint's redo point
 * reached `max_wal_size / (1 + checkpoint_completion_target)` (where PostgreSQL requests one), or
 * `checkpoint_timeout` has passed since it and something was written after its record (an idle
 * database is not checkpointed again and again: the record alone is ~120 bytes).
 */
const CHECKPOINT_DUE = `
select case
         when pg_wal_lsn_diff(pg_current_wal_insert_lsn(), c.redo_lsn)
              >= pg_size_bytes(current_setting('max_wal_size'))
                 / (1 + current_setting('checkpoint_completion_target')::float8) then 'wal'
         when now() - c.checkpoint_time >= current_setting('checkpoint_timeout')::interval
              and pg_wal_lsn_diff(pg_current_wal_insert_lsn(), c.checkpoint_lsn) > 256 then 'time'
       end as cause
  from pg_control_checkpoint() c`;

/**
 * PostgreSQL's checkpointer for PGlite, which runs PostgreSQL as one single-user backend and so never
 * checkpoints on its own until it shuts down: without this the WAL grows without end (every segment since
 * the start is kept, ~20 KB per task of the reference server: 0.5 GB a minute under load), and a process
 * that dies without closing replays all of it when it opens again. A checkpoint writes the dirty pages
 * back and lets PostgreSQL recycle the segments before its redo point, so `pg_wal` stays near
 * `max_wal_size`. It holds up the database while it works (an immediate checkpoint, ~150 ms for 400 MB of
 * WAL on the development machine).
 */
export class PGliteCheckpointer {
  private readonly passes: PeriodicJob;

  constructor(
    private readonly db: Queryable,
    options: PGliteCheckpointsOptions = {},
    /** False once the instance was closed by whoever owns it: the timer then stops instead of failing. */
    isOpen: () => boolean = () => true,
  ) {
    this.passes = startPGlitePasses(() => this.runOnce(), options, DEFAULT_CHECKPOINT_INTERVAL_MS, isOpen);
  }

  /** Checks now, and checkpoints if due: why it did, or undefined. */
  async runOnce(): Promise<CheckpointCause | undefined> {
    const { rows } = await this.db.query<{ cause: CheckpointCause | null }>(CHECKPOINT_DUE);
    const cause = rows[0]?.cause ?? undefined;
    if (cause) await this.db.exec("checkpoint");
    return cause;
  }

  /** Stops the timer and waits for a check or checkpoint under way. */
  stop(): Promise<void> {
    return this.passes.stop();
  }
}
