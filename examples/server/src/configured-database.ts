import { type Database, openDatabase } from "@a2a-partner/postgres-store";
import { ConfigError, type ServerConfig } from "./config.ts";
import type { Logger } from "./logger.ts";

// Apart from server.ts so that the CLI's admin commands open the store without loading the HTTP stack.

/** Who holds the embedded data directory's lock when a server does (the CLI waits for such a holder). */
export const SERVER_LOCK_OWNER = "server";

/**
 * Opens the configured store. An embedded data directory is locked for `owner` while it is open; another
 * holder makes this throw DataDirectoryLockedError (the CLI exits with EXIT_CODES.dataDirectoryInUse).
 */
export async function openConfiguredDatabase(
  config: ServerConfig,
  owner: string = SERVER_LOCK_OWNER,
  logger?: Logger,
): Promise<Database> {
  if (!config.databaseUrl) {
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
      onWorkerRestarted: () => logger?.warn("embedded store: database thread restarted; serving again"),
    };
    return openDatabase({
      dataDir: config.dataDir,
      lock: { owner },
      autovacuum,
      checkpoints,
      worker,
    }).catch((error: unknown) => {
      throw dataDirRefused(error, config.dataDir) ?? error;
    });
  }
  const { listenUrl, readUrl, transactionPooler } = config.databaseConnections;
  return openDatabase({
    url: config.databaseUrl,
    pool: postgresPoolOptions(20),
    ...(listenUrl ? { listenUrl } : {}),
    ...(readUrl ? { readUrl } : {}),
    transactionPooler,
  });
}

/**
 * The reference server's PostgreSQL pools (the server's, and its push dispatch thread's): fail fast while
 * PostgreSQL is unreachable (requests answer 503 / -32603) instead of queueing forever, and since a query
 * on a connection whose packets vanish would wait forever, bound it and probe idle sockets.
 */
export function postgresPoolOptions(max: number) {
  return {
    connectionTimeoutMillis: 5_000,
    query_timeout: 30_000,
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    max,
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
