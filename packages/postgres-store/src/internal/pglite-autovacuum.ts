import type { Queryable } from "../database.js";

/** The store's stand-in for PostgreSQL's autovacuum on PGlite (see `PGliteDatabaseOptions.autovacuum`). */
export interface PGliteAutovacuumOptions {
  /** How often the tables' counters are read (a millisecond or two in WASM). Default 15 s. */
  intervalMs?: number;
  /** A pass that failed (it is tried again at the next interval). Default: ignored. */
  onError?: (error: unknown) => void;
}

export const DEFAULT_AUTOVACUUM_INTERVAL_MS = 15_000;

/** What one pass did to one table. */
export interface AutovacuumAction {
  table: string;
  vacuum: boolean;
  analyze: boolean;
}

/**
 * Which tables are due, by autovacuum's own rules and settings (`autovacuum_vacuum_threshold` + scale
 * factor × rows for dead rows, the insert and analyze thresholds likewise, and `autovacuum_freeze_max_age`
 * against transaction-id wraparound), from the counters PostgreSQL keeps per table.
 */
const DUE_TABLES = `
with settings as (
  select current_setting('autovacuum_vacuum_threshold')::float8 as vt,
         current_setting('autovacuum_vacuum_scale_factor')::float8 as vs,
         current_setting('autovacuum_vacuum_insert_threshold')::float8 as it,
         current_setting('autovacuum_vacuum_insert_scale_factor')::float8 as "is",
         current_setting('autovacuum_analyze_threshold')::float8 as at,
         current_setting('autovacuum_analyze_scale_factor')::float8 as "as",
         current_setting('autovacuum_freeze_max_age')::float8 as freeze_max_age
), tables as (
  select format('%I.%I', s.schemaname, s.relname) as target, greatest(c.reltuples, 0) as rows,
         s.n_dead_tup, s.n_ins_since_vacuum, s.n_mod_since_analyze, age(c.relfrozenxid) as xid_age
    from pg_stat_user_tables s join pg_class c on c.oid = s.relid
)
select t.target,
       (t.n_dead_tup > vt + vs * t.rows
         or (it >= 0 and t.n_ins_since_vacuum > it + "is" * t.rows)
         or t.xid_age > freeze_max_age) as vacuum,
       t.n_mod_since_analyze > at + "as" * t.rows as analyze
  from tables t, settings
 where t.n_dead_tup > vt + vs * t.rows
    or (it >= 0 and t.n_ins_since_vacuum > it + "is" * t.rows)
    or t.xid_age > freeze_max_age
    or t.n_mod_since_analyze > at + "as" * t.rows
 order by t.target`;

/**
 * PostgreSQL's autovacuum for PGlite, which runs PostgreSQL as one single-user backend and so has no
 * autovacuum launcher: without this, dead row versions (a task row is rewritten at every step) are
 * never reclaimed, the data directory and its indexes grow without end, tables are never analyzed, and
 * after about two billion transactions the database stops accepting writes to protect itself from
 * transaction-id wraparound. Each pass reads the counters PGlite does keep and runs VACUUM / ANALYZE on
 * the tables autovacuum would pick, one table at a time. A VACUUM or ANALYZE also makes PostgreSQL
 * re-plan the named statements that read the table, which PGlite otherwise keeps planned for the sizes
 * the tables had when they were first run.
 *
 * PGlite runs on the caller's thread, so a pass holds up everything else while it works (a few ms for a
 * table of thousands of rows; thresholds grow with the table, so the cost per row stays the same).
 */
export class PGliteAutovacuum {
  private readonly timer: ReturnType<typeof setInterval>;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly db: Queryable,
    private readonly options: PGliteAutovacuumOptions = {},
    /** False once the instance was closed by whoever owns it: the timer then stops instead of failing. */
    private readonly isOpen: () => boolean = () => true,
  ) {
    this.timer = setInterval(() => {
      if (!this.isOpen()) {
        clearInterval(this.timer);
        return;
      }
      if (this.running) return; // the previous pass is still at work
      this.running = this.runOnce()
        .catch((error: unknown) => this.options.onError?.(error))
        .finally(() => {
          this.running = undefined;
        });
    }, options.intervalMs ?? DEFAULT_AUTOVACUUM_INTERVAL_MS);
    this.timer.unref();
  }

  /** One pass now: the tables that were due, and what was run on each. */
  async runOnce(): Promise<AutovacuumAction[]> {
    // Counters reach the shared statistics only every so often; make this read see the latest.
    await this.db.query("select pg_stat_force_next_flush()");
    const { rows } = await this.db.query<AutovacuumAction & { target: string }>(DUE_TABLES);
    const done: AutovacuumAction[] = [];
    for (const row of rows) {
      if (this.stopped) break;
      // `target` is quoted by format('%I.%I') from the catalog's own names.
      if (row.vacuum) await this.db.exec(`vacuum ${row.analyze ? "(analyze) " : ""}${row.target}`);
      else await this.db.exec(`analyze ${row.target}`);
      done.push({ table: row.target, vacuum: row.vacuum, analyze: row.analyze });
    }
    return done;
  }

  /** Stops the timer and waits for a pass under way (it stops after the table it is on). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
