import type { Server } from "node:http";
import { resolve as resolvePath } from "node:path";
import { startGrpcServerWith } from "@a2a-partner/a2a-core/grpc";
import {
  assertPublicUrlFits,
  controlSocketPaths,
  createHttpServer,
  listenHttp,
  redactSecrets,
} from "@a2a-partner/a2a-core/node-runtime";
import { type Database, openAsServer } from "@a2a-partner/postgres-store";
import type { Logger } from "pino";
import { createApp, type ServerApp } from "./app.ts";
import type { ServerConfig } from "./config.ts";
import { openConfiguredDatabase, SERVER_LOCK_OWNER } from "./configured-database.ts";
import { startControlSocket } from "./control/control-socket.ts";
import { migrateReferenceSchema } from "./migrations.ts";
import { startTaskPruner } from "./retention/task-pruner.ts";

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

/** The data's place for the listening line: the data directory, or the database without its password. */
function whereTheDataIs(config: ServerConfig): string {
  return config.databaseUrl ? redactSecrets(config.databaseUrl) : resolvePath(config.dataDir);
}

/**
 * Opens the store for the server (postgres-store's openAsServer). Another server holding the embedded data
 * directory is an error at once; a CLI command holding it (a `seed` started at the same moment) is waited
 * for, up to WAIT_FOR_CLI_MS.
 */
function openServerDatabase(config: ServerConfig, logger: Logger): Promise<Database> {
  return openAsServer(() => openConfiguredDatabase(config, SERVER_LOCK_OWNER, logger), {
    serverOwner: SERVER_LOCK_OWNER,
    waitMs: WAIT_FOR_CLI_MS,
    onWait: (holder) => logger.info({ holder }, "waiting for a CLI command to release the data directory"),
    // Most often the `pnpm start` of another terminal. Still exit 75, but saying what to do: one server
    // per data directory, a second one needs its own.
    anotherServerHint:
      "Another reference server is running on it (a `pnpm start` in another terminal?): use that one (its log " +
      "line says where it listens), stop it, or start this one with a DATA_DIR and a PORT of its own.",
  });
}

export async function startServer(config: ServerConfig, logger: Logger): Promise<RunningServer> {
  // Only `serve` checks this; the admin commands never listen.
  assertPublicUrlFits(config);
  // Computed (and checked) before anything is opened: a DATA_DIR too long for the socket stops the start.
  const paths = config.databaseUrl ? undefined : controlSocketPaths(config.dataDir);
  // Locks an embedded data directory before opening it: two processes on it would corrupt it.
  const db = await openServerDatabase(config, logger);
  let control: Server | undefined;
  const closeControl = () => new Promise<void>((resolve) => (control ? control.close(() => resolve()) : resolve()));
  // Should a step fail (e.g. the port is taken), what is open is closed, last first, so the process can
  // exit with the error.
  const opened: Array<() => unknown> = [() => db.close(), closeControl];
  const undo = async (error: unknown): Promise<never> => {
    for (const close of opened.reverse()) await close();
    throw error;
  };
  await migrateReferenceSchema(db).catch(undo);
  control = paths ? await startControlSocket(db, paths, logger).catch(undo) : undefined;
  const app = createApp({ db, config, logger });
  opened.push(() => app.close());
  const server = createHttpServer(app.listener, config);
  const url = await listenHttp(server, config).catch(undo);
  opened.push(() => server.close());
  // Where to point a client, and where its data is kept: the two things a first start needs to say.
  logger.info(
    { url, store: db.kind, data: whereTheDataIs(config), publicUrl: redactSecrets(config.publicUrl) },
    "reference server listening",
  );
  const grpc = config.grpc ? await startGrpcServerWith(app.handler, config.grpc, logger).catch(undo) : undefined;

  const pruner = config.taskRetentionMs === undefined ? undefined : startTaskPruner(db, config.taskRetentionMs, logger);

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      logger.info("shutting down");
      await pruner?.stop();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // gRPC stops taking calls; its streams end with the handler's (app.close), as the HTTP ones do.
      const grpcClosed = grpc?.close({ graceMs: config.shutdownGraceMs });
      await app.close();
      await grpcClosed;
      server.closeAllConnections();
      await closed;
      await closeControl();
      await db.close();
      logger.info("stopped");
    })();
    return stopping;
  };
  return { url, server, app, db, stop };
}
