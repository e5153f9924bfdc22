import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import type { ClientConfig, CustomTypesConfig, PoolConfig } from "pg";
import type { Database } from "./database.js";
import { lockDataDirectory } from "./pglite/data-directory-lock.js";
import {
  type PGliteAutovacuumOptions,
  type PGliteCheckpointsOptions,
  pgliteDatabase,
} from "./pglite/pglite-database.js";
import type { PGliteMaintenanceOptions } from "./pglite/pglite-maintenance.js";
import { openPGliteWorkerDatabase, type PGliteWorkerEvents } from "./pglite/pglite-worker-database.js";
import { closeDataDirectory, makeDataDirectoryPrivate } from "./pglite/private-data-directory.js";
import { pgDatabase } from "./postgres/pg-database.js";
import { LISTEN_SESSIONS, sessionStartup, UTC_SESSIONS } from "./postgres/session-options.js";

export interface OpenDatabaseOptions {
  /** A PostgreSQL connection string (e.g. `DATABASE_URL`). Set: node-postgres; unset: embedded PGlite. */
  url?: string;
  /** PGlite's data directory when `url` is unset. Default `./.data/pglite`; `memory://` keeps it in memory. */
  dataDir?: string;
  /**
   * Extra node-postgres pool settings (`max`, `ssl`, timeouts …), used only with `url`. Besides `max`
   * connections, up to two more serve `background` statements alone (the group commit's), opened when
   * first used.
   */
  pool?: PoolConfig;
  /**
   * Where the one `LISTEN` connection goes (it needs a session that stays put): default `url`. When `url`
   * is a pooler in transaction mode, set this to PostgreSQL's own address (a "direct URL"). Its session
   * asks for `tcp_user_timeout=30000` unless the URL's `options` (or `pool.options`) name one: a process
   * that stops reading is cut instead of holding back the cluster's NOTIFY queue.
   */
  listenUrl?: string;
  /**
   * A streaming replica of `url`'s database: `Database.replica` reads there (the task store's GetTask and
   * ListTasks of ended tasks, checked against the primary when the replica may lag; the metrics query).
   */
  readUrl?: string;
  /**
   * `url` (and `readUrl`) reach PostgreSQL through a pooler in transaction mode (PgBouncer's
   * `pool_mode = transaction`, a managed service's transaction pooler), where consecutive statements may
   * run on different server sessions: no named prepared statements are used (PgBouncer before 1.21 loses
   * them between transactions) and no startup `options` are sent (PgBouncer refuses them; every statement
   * of these stores names UTC itself where the zone matters). Needs `listenUrl`.
   */
  transactionPooler?: boolean;
  /**
   * An on-disk PGlite directory is locked while open (a second process, or a second open in this one, is
   * refused with DataDirectoryLockedError); `owner` says who holds it in that error. `false`: no lock, for
   * callers that coordinate themselves.
   */
  lock?: false | { owner?: string };
  /** PGlite only: its stand-in for PostgreSQL's autovacuum (see `PGliteDatabaseOptions`). Default on. */
  autovacuum?: boolean | PGliteAutovacuumOptions;
  /** PGlite only: its stand-in for PostgreSQL's checkpointer (see `PGliteDatabaseOptions`). Default on. */
  checkpoints?: boolean | PGliteCheckpointsOptions;
  /**
   * PGlite only: run it in a worker thread (default true), so that PostgreSQL in WASM executes on another
   * core than the caller's requests. `false`: on the calling thread, as `pgliteDatabase` does. An object:
   * in a worker thread, and the application is told when that thread dies and when a new one has opened
   * the data directory again (statements fail in between, as in a database outage).
   */
  worker?: boolean | PGliteWorkerEvents;
  /**
   * PGlite with `dataDir: "memory://"` only: start from this copy of a data directory (what PGlite's
   * `dumpDataDir()` returns) instead of an empty one. An empty one is made by initdb, seconds of CPU; a
   * test suite that opens many fresh databases can dump one once and load it each time.
   */
  loadDataDir?: Blob;
}

export const DEFAULT_PGLITE_DATA_DIR = "./.data/pglite";

/**
 * Opens the database: PostgreSQL through a `pg.Pool` when `url` is set, else PGlite. The drivers are
 * optional peer dependencies, loaded only when needed, so a PostgreSQL deployment does not carry the
 * PGlite WASM and an embedded one does not need `pg`. Migrations are separate: call `migrate(db)`.
 */
export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  if (options.url) return openPostgres(options.url, options);
  const maintenance = { autovacuum: options.autovacuum, checkpoints: options.checkpoints };
  return openPGlite(
    options.dataDir ?? DEFAULT_PGLITE_DATA_DIR,
    options.lock ?? {},
    maintenance,
    options.worker ?? true,
    options.loadDataDir,
  );
}

async function openPGlite(
  dataDir: string,
  lockOptions: false | { owner?: string },
  maintenance: PGliteMaintenanceOptions,
  worker: boolean | PGliteWorkerEvents,
  loadDataDir: Blob | undefined,
): Promise<Database> {
  if (loadDataDir && !dataDir.startsWith("memory://")) {
    throw new Error(`loadDataDir applies to an in-memory PGlite (dataDir "memory://") only, not to "${dataDir}"`);
  }
  const { PGlite } = await loadDriver(() => import("@electric-sql/pglite"), "@electric-sql/pglite");
  const open = (location: string) =>
    worker !== false
      ? openPGliteWorkerDatabase(location, { ...maintenance, ...(worker === true ? {} : worker), loadDataDir })
      : PGlite.create(location, loadDataDir ? { loadDataDir } : {}).then((instance) =>
          pgliteDatabase(instance, maintenance),
        );
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(dataDir);
  if (hasScheme) return open(dataDir);
  const location = resolve(dataDir);
  // Owner-only, as PostgreSQL wants its data directory: made so, or closed at once if it already existed.
  await mkdir(location, { recursive: true, mode: 0o700 });
  await closeDataDirectory(location);
  // Locked before PGlite reads a byte of it, and released only after PGlite has closed it.
  const lock = lockOptions === false ? undefined : await lockDataDirectory(location, lockOptions);
  let db: Database;
  try {
    db = await open(location);
    // What is under it too, at every start: the files PGlite unpacked at its first start are 0666.
    await makeDataDirectoryPrivate(location).catch(async (error: unknown) => {
      await db.close();
      throw error;
    });
  } catch (error) {
    await lock?.release();
    throw error;
  }
  if (!lock) return db;
  return {
    ...db,
    async close() {
      try {
        await db.close();
      } finally {
        await lock.release();
      }
    },
  };
}

async function openPostgres(url: string, options: OpenDatabaseOptions): Promise<Database> {
  const pooled = options.transactionPooler === true;
  if (pooled && !options.listenUrl) {
    // LISTEN through a transaction pooler is accepted and then silently hears nothing.
    throw new TypeError("openDatabase: transactionPooler needs listenUrl, a direct connection for LISTEN");
  }
  const mod = await loadDriver(() => import("pg"), "pg");
  // pg is CommonJS: older versions without an ESM wrapper expose their classes only on `default`.
  const pg = typeof mod.Pool === "function" ? mod : (mod as unknown as { default: typeof mod }).default;
  const poolConfig = options.pool ?? {};
  const base: ClientConfig = { ...poolConfig, types: poolConfig.types ?? sameAsPGlite(pg) };
  // A pooler's server sessions are shared: the session's zone is whatever it is, so none is asked for.
  const openPool = (connectionString: string, bounds?: { max: number; min: number }) => {
    const startup = pooled
      ? { connectionString, options: poolConfig.options }
      : sessionStartup(connectionString, poolConfig.options, UTC_SESSIONS);
    const pool = new pg.Pool({ ...base, ...startup, ...bounds });
    // Idle clients that fail (server restart, network) emit 'error' on the pool; unhandled it would crash
    // the process. The pool drops such clients itself and the next query reconnects.
    pool.on("error", () => undefined);
    return pool;
  };
  const listenConnection: ClientConfig = {
    ...base,
    ...sessionStartup(options.listenUrl ?? url, poolConfig.options, LISTEN_SESSIONS),
    // The listening connection is idle for long spells: probe it early so a dead peer is noticed (the
    // listener's own heartbeat is the first line; this is the kernel's).
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
  };
  return pgDatabase(openPool(url), () => new pg.Client(listenConnection), {
    namedStatements: !pooled,
    ...(options.readUrl ? { replica: openPool(options.readUrl) } : {}),
    // Opened when first used: a Database nobody runs a group commit on never connects them.
    background: openPool(url, { max: BACKGROUND_CONNECTIONS, min: BACKGROUND_CONNECTIONS }),
  });
}

/**
 * Connections for `background` statements, beside the pool's `max`: the group commit's one commit in
 * flight, and a second for a writer allowed more (`PgDatabaseOptions.background`). Once opened they stay
 * open through a lull, whatever the pool's idle timeout: the group commit's statements are prepared and
 * planned on them, and a commit after a lull would otherwise wait for a new session first.
 */
const BACKGROUND_CONNECTIONS = 2;

/** Parse `int8` and `date` the way PGlite does, so rows look the same whichever driver produced them. */
function sameAsPGlite(pg: typeof import("pg")): CustomTypesConfig {
  const INT8 = 20;
  const DATE = 1082;
  return {
    getTypeParser: ((oid: number, format?: "text" | "binary") => {
      if (format !== "binary" && oid === INT8) {
        return (text: string) => {
          const value = Number(text);
          return Number.isSafeInteger(value) ? value : BigInt(text);
        };
      }
      if (format !== "binary" && oid === DATE) {
        const fallback = pg.types.getTypeParser(DATE, "text");
        return (text: string) =>
          /^\d{4}-\d{2}-\d{2}$/.test(text) ? new Date(`${text}T00:00:00.000Z`) : fallback(text);
      }
      return pg.types.getTypeParser(oid, format);
    }) as CustomTypesConfig["getTypeParser"],
  };
}

async function loadDriver<T>(load: () => Promise<T>, name: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") {
      throw new Error(`@a2a-partner/postgres-store needs the optional dependency "${name}": install it`);
    }
    throw error;
  }
}
