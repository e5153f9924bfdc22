import { ConfigError } from "@a2a-partner/a2a-core/node-runtime";
import type { Database } from "../database.js";
import { openDatabase } from "../open-database.js";
import type { DatabaseConnections } from "./database-settings.js";

/** Where the lines of `openConfiguredDatabase` go (pino's logger fits). */
export interface ConfiguredDatabaseLogger {
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface ConfiguredDatabaseOptions {
  /** DATABASE_URL; unset: the embedded PGlite store in `dataDir`. */
  url: string | undefined;
  /** DATA_DIR: the embedded store's data directory. */
  dataDir: string;
  /** DATABASE_LISTEN_URL, DATABASE_READ_URL, DATABASE_POOLER (`databaseConnections`). */
  connections: DatabaseConnections;
  /** Who holds the embedded data directory's lock while it is open (DataDirectoryLockedError names it). */
  owner: string;
  /** The embedded store's failed maintenance passes and worker-thread restarts; none when absent. */
  logger?: ConfiguredDatabaseLogger | undefined;
  /** PostgreSQL's pool size (`postgresPoolOptions`). Default 20. */
  poolSize?: number;
}

/**
 * Opens the store a server is configured with: PostgreSQL with `postgresPoolOptions`, or the embedded
 * store locked for `owner`, its maintenance and worker-thread events logged. A DATA_DIR that cannot
 * become the data directory is a ConfigError naming it.
 */
export async function openConfiguredDatabase(options: ConfiguredDatabaseOptions): Promise<Database> {
  const { logger } = options;
  if (!options.url) {
    // PGlite has no autovacuum or checkpointer of its own: the store runs its stand-ins, and a pass that
    // fails is logged.
    const autovacuum = {
      onError: (error: unknown) => logger?.warn({ err: error }, "embedded store: vacuum pass failed"),
    };
    const checkpoints = {
      onError: (error: unknown) => logger?.warn({ err: error }, "embedded store: checkpoint failed"),
    };
    // Its thread dying is an outage of the store (requests answer 503) until a new one has taken over.
    const worker = {
      onWorkerLost: (error: Error) =>
        logger?.error(
          { err: error },
          "embedded store: its database thread died; restarting it (requests fail meanwhile)",
        ),
      onWorkerRestarted: () => logger?.warn({}, "embedded store: database thread restarted; serving again"),
    };
    return openDatabase({
      dataDir: options.dataDir,
      lock: { owner: options.owner },
      autovacuum,
      checkpoints,
      worker,
    }).catch((error: unknown) => {
      throw dataDirRefused(error, options.dataDir) ?? error;
    });
  }
  const { listenUrl, readUrl, transactionPooler } = options.connections;
  return openDatabase({
    url: options.url,
    pool: postgresPoolOptions(options.poolSize ?? 20),
    ...(listenUrl ? { listenUrl } : {}),
    ...(readUrl ? { readUrl } : {}),
    transactionPooler,
  });
}

/**
 * A server's PostgreSQL pool: fail fast while PostgreSQL is unreachable (requests answer 503 / -32603)
 * instead of queueing forever, and since a query on a connection whose packets vanish would wait forever,
 * bound it and probe idle sockets. Two connections, once opened, stay through a lull (pg closes the rest
 * after 10 s idle): a task that comes after one then does not wait for a new session and for its
 * statements to be prepared and planned again (measured: its first event 1.4-3 ms sooner).
 */
export function postgresPoolOptions(max: number) {
  return {
    connectionTimeoutMillis: 5_000,
    query_timeout: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    max,
    min: Math.min(2, max),
  };
}

/**
 * DATA_DIR naming something that cannot become the data directory (a file, a path under a file, a place
 * the server may not write): the operator's setting to fix, so a configuration error (exit 78) that says
 * which setting, not the bare EEXIST of the `mkdir` that found it.
 */
function dataDirRefused(error: unknown, dataDir: string): ConfigError | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { code, syscall } = error as NodeJS.ErrnoException;
  if (syscall !== "mkdir") return undefined;
  const reasons: Record<string, string> = {
    EEXIST: "exists and is not a directory",
    ENOTDIR: "lies under a file, not a directory",
    EACCES: "cannot be created: permission denied",
    EROFS: "cannot be created: read-only file system",
  };
  const reason = code === undefined ? undefined : reasons[code];
  if (!reason) return undefined;
  return new ConfigError(
    `DATA_DIR=${dataDir} ${reason}; point DATA_DIR at a directory the server may create or write to`,
    { cause: error },
  );
}
