import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve as resolvePath } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type Database, isDataDirectoryLockedError, openDatabase } from "@a2a-partner/postgres-store";
import { createApp, type ServerApp } from "./app.ts";
import { assertServable, ConfigError, type ServerConfig } from "./config.ts";
import { controlPaths } from "./control/control-paths.ts";
import { startControlSocket } from "./control/control-socket.ts";
import type { Logger } from "./logger.ts";
import { migrateReferenceSchema } from "./migrations.ts";
import { redactSecrets } from "./redact-secrets.ts";
import { startTaskPruner } from "./retention/task-pruner.ts";

/** Who holds the embedded data directory's lock when a server does (the CLI waits for such a holder). */
export const SERVER_LOCK_OWNER = "server";

/** How long a starting server waits for a CLI command (`seed`, `token` …) to let go of the data directory. */
const WAIT_FOR_CLI_MS = 30_000;

export interface RunningServer {
  url: string;
  server: Server;
  app: ServerApp;
  db: Database;
  /** Graceful shutdown: stop accepting, end streams cleanly, let tasks finish (grace), close the store. */
  stop(): Promise<void>;
}

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
  // Fail fast while PostgreSQL is unreachable (requests answer 503 / -32603) instead of queueing forever.
  // A query on a connection whose packets vanish would wait forever: bound it, and probe idle sockets.
  return openDatabase({
    url: config.databaseUrl,
    pool: {
      connectionTimeoutMillis: 5_000,
      query_timeout: 30_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      max: 20,
    },
  });
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

/**
 * A port another process holds, or one this user may not bind: the operator's PORT / HOST to change, said
 * so (the bare `listen EADDRINUSE` named neither).
 */
function listenRefused(error: unknown, config: ServerConfig): Error | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const where = `${config.host}:${config.port}`;
  if (code === "EADDRINUSE") {
    return new Error(
      `PORT=${config.port} is already in use on ${config.host} (another server running?): stop it, or set PORT ` +
        "to a free port (PORT=0 picks one)",
      { cause: error },
    );
  }
  if (code === "EACCES") {
    return new Error(`cannot listen on ${where}: permission denied; set PORT to 1024 or above`, { cause: error });
  }
  if (code === "EADDRNOTAVAIL") {
    return new Error(`HOST=${config.host} is not an address of this machine; set HOST to one (e.g. 127.0.0.1)`, {
      cause: error,
    });
  }
  return undefined;
}

/** The data's place for the listening line: the data directory, or the database without its password. */
function whereTheDataIs(config: ServerConfig): string {
  return config.databaseUrl ? redactSecrets(config.databaseUrl) : resolvePath(config.dataDir);
}

/**
 * The HTTP server for an app. requestTimeout bounds receiving a request (slow-loris uploads) and is checked
 * often enough to matter; it never cuts a response, so SSE streams live as long as they need. Idle
 * keep-alive sockets close after keepAliveTimeout.
 */
export function createHttpServer(app: ServerApp, config: ServerConfig): Server {
  const checkEvery =
    config.requestTimeoutMs > 0 ? Math.max(100, Math.min(config.requestTimeoutMs / 2, 30_000)) : 30_000;
  const server = createServer({ connectionsCheckingInterval: checkEvery }, app.listener);
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = config.requestTimeoutMs > 0 ? Math.min(config.requestTimeoutMs, 30_000) : 30_000;
  server.keepAliveTimeout = 5_000;
  // Past the bound node closes new connections at once: a flood cannot exhaust the process's sockets.
  if (config.maxConnections > 0) server.maxConnections = config.maxConnections;
  return server;
}

/**
 * Opens the store for the server. Another server holding the embedded data directory is an error at once;
 * a CLI command holding it (a `seed` started at the same moment) is waited for, up to WAIT_FOR_CLI_MS.
 */
async function openServerDatabase(config: ServerConfig, logger: Logger): Promise<Database> {
  const deadline = Date.now() + WAIT_FOR_CLI_MS;
  let waiting = false;
  for (;;) {
    try {
      return await openConfiguredDatabase(config, SERVER_LOCK_OWNER, logger);
    } catch (error) {
      if (!isDataDirectoryLockedError(error) || error.holder.owner === SERVER_LOCK_OWNER || Date.now() > deadline) {
        throw error;
      }
      if (!waiting) logger.info({ holder: error.holder }, "waiting for a CLI command to release the data directory");
      waiting = true;
    }
    await sleep(100);
  }
}

export async function startServer(config: ServerConfig, logger: Logger): Promise<RunningServer> {
  assertServable(config);
  // Computed (and checked) before anything is opened: a DATA_DIR too long for the socket stops the start.
  const paths = config.databaseUrl ? undefined : controlPaths(config.dataDir);
  // Locks an embedded data directory before opening it: two processes on it would corrupt it.
  const db = await openServerDatabase(config, logger);
  let control: Server | undefined;
  try {
    await migrateReferenceSchema(db);
    control = paths ? await startControlSocket(db, paths, logger) : undefined;
  } catch (error) {
    await db.close();
    throw error;
  }
  const app = createApp({ db, config, logger });
  const server = createHttpServer(app, config);
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(config.port, config.host, () => resolve());
    });
  } catch (error) {
    // e.g. the port is taken: release the store so the process can exit with the error.
    await app.close();
    await new Promise<void>((resolve) => (control ? control.close(() => resolve()) : resolve()));
    await db.close();
    throw listenRefused(error, config) ?? error;
  }
  const address = server.address() as AddressInfo;
  const url = `http://${address.address.includes(":") ? `[${address.address}]` : address.address}:${address.port}`;
  // Where to point a client, and where its data is kept: the two things a first start needs to say.
  logger.info(
    { url, store: db.kind, data: whereTheDataIs(config), publicUrl: redactSecrets(config.publicUrl) },
    "reference server listening",
  );

  const pruner = config.taskRetentionMs === undefined ? undefined : startTaskPruner(db, config.taskRetentionMs, logger);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      logger.info("shutting down");
      await pruner?.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await app.close();
      server.closeAllConnections();
      await closed;
      await new Promise<void>((resolve) => (control ? control.close(() => resolve()) : resolve()));
      await db.close();
      logger.info("stopped");
    })();
    return stopping;
  };
  return { url, server, app, db, stop };
}
