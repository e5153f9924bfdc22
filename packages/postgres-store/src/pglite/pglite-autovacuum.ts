import type { PeriodicJob } from "@a2a-partner/a2a-core";
import type { Queryable } from "../database.js";
import { startPGlitePasses } from "./pglite-passes.js";

/** The store's stand-in for PostgreSQL's autovacuum on PGlite (see `PGliteDatabaseOptions.autovacuum`). */
export interface PGliteAutovacuumOptions {
  /**
   * How often the tables' counters are read (5–7 ms in WASM when nothing is due). Default 5 s: passes
   * hold up the one thread PGlite runs on, so several small ones beat one large one.
   */
  intervalMs?: number;
  /** A pass that failed (it is tried again at the next interval). Default: ignored. */
  onError?: (error: unknown) => void;
}

export const DEFAULT_AUTOVACUUM_INTERVAL_MS = 5_000;

/** What one pass did to one table (`(database)`: a database-wide VACUUM against wraparound). */
export interface AutovacuumAction {
  table: string;
  vacuum: boolean;
  analyze: boolean;
}

/**
 * Which tables are due, by the server-wide thresholds autovacuum uses (`autovacuum_vacuum_threshold` +
 * scale factor × rows for dead rows, the insert and analyze thresholds likewise, and
 * `autovacuum_freeze_max_age` against transaction-id wraparound), from the counters PostgreSQL keeps per
 * table: plain tables and materialized views of every schema, the system catalogs included (they bloat
 * too), toast tables left to their main table. Per-table storage parameters are not read. A row with a
 * null target: the database as a whole is near wraparound (its oldest unfrozen transaction id is the
 * oldest of any table's), and a database-wide VACUUM, which freezes every table, is due instead.
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
  -- pg_statistic is never analyzed (ANALYZE skips it, as autovacuum does), so it never counts as modified.
  select format('%I.%I', s.schemaname, s.relname) as target, greatest(c.reltuples, 0) as rows,
         s.n_dead_tup, s.n_ins_since_vacuum, age(c.relfrozenxid) as xid_age,
         case when c.oid = 'pg_catalog.pg_statistic'::regclass then 0 else s.n_mod_since_analyze end
           as n_mod_since_analyze
    from pg_stat_all_tables s join pg_class c on c.oid = s.relid
   where c.relkind in ('r', 'm') and s.schemaname <> 'pg_toast'
), due as (
  select t.target,
         t.n_dead_tup > vt + vs * t.rows
           or (it >= 0 and t.n_ins_since_vacuum > it + "is" * t.rows)
           or t.xid_age > freeze_max_age as vacuum,
         t.n_mod_since_analyze > at + "as" * t.rows as "analyze"
    from tables t, settings
)
select target, vacuum, "analyze" from due where vacuum or "analyze"
union all
select null, true, false from pg_database, settings
 where datname = current_database() and age(datfrozenxid) > freeze_max_age
 order by target nulls first`;

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
  private readonly passes: PeriodicJob;
  private stopped = false;

  constructor(
    private readonly db: Queryable,
    options: PGliteAutovacuumOptions = {},
    /** False once the instance was closed by whoever owns it: the timer then stops instead of failing. */
    isOpen: () => boolean = () => true,
  ) {
    this.passes = startPGlitePasses(() => this.runOnce(), options, DEFAULT_AUTOVACUUM_INTERVAL_MS, isOpen);
  }

  /** One pass now: the tables that were due, and what was run on each. */
  async runOnce(): Promise<AutovacuumAction[]> {
    // Counters reach the shared statistics only every so often; make this read see the latest.
    await this.db.query("select pg_stat_force_next_flush()");
    const { rows } = await this.db.query<{ target: string | null; vacuum: boolean; analyze: boolean }>(DUE_TABLES);
    if (rows[0]?.target === null) {
      // Near wraparound: one database-wide VACUUM covers every table, the due ones included.
      await this.db.exec("vacuum");
      return [{ table: "(database)", vacuum: true, analyze: false }];
    }
    const done: AutovacuumAction[] = [];
    for (const { target, vacuum, analyze } of rows) {
      if (this.stopped || target === null) return done;
      // `target` is quoted by format('%I.%I') from the catalog's own names.
      if (vacuum) await this.db.exec(`vacuum ${analyze ? "(analyze) " : ""}${target}`);
      else await this.db.exec(`analyze ${target}`);
      done.push({ table: target, vacuum, analyze });
    }
    return done;
  }

  /** Stops the timer and waits for a pass under way (it stops after the table it is on). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.passes.stop();
  }
}
