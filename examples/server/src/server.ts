import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type Database, migrate, openDatabase } from "@a2a-partner/postgres-store";
import { createApp, type ServerApp } from "./app.ts";
import type { ServerConfig } from "./config.ts";
import { assertNoServerOn, startControlSocket } from "./control/control-socket.ts";
import type { Logger } from "./logger.ts";

export interface RunningServer {
  url: string;
  server: Server;
  app: ServerApp;
  db: Database;
  /** Graceful shutdown: stop accepting, end streams cleanly, let tasks finish (grace), close the store. */
  stop(): Promise<void>;
}

export async function openConfiguredDatabase(config: ServerConfig): Promise<Database> {
  if (!config.databaseUrl) return openDatabase({ dataDir: config.dataDir });
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

/** Where the running server answers the CLI's admin commands when the store is embedded. */
export function controlSocketPath(config: ServerConfig): string {
  const beside = join(dirname(resolve(config.dataDir)), "control.sock");
  // Unix socket paths are limited to ~107 bytes: from a deep checkout use a short path keyed by the dir.
  if (Buffer.byteLength(beside) <= 100) return beside;
  const key = createHash("sha256").update(resolve(config.dataDir)).digest("hex").slice(0, 16);
  return join(tmpdir(), `a2a-control-${key}.sock`);
}

/**
 * The HTTP server for an app. requestTimeout bounds receiving a request (slow-loris uploads) and is checked
 * often enough to matter; it never cuts a response, so SSE streams live as long as they need. Idle
 * keep-alive sockets close after keepAliveTimeout.
 */
export function createHttpServer(app: ServerApp, config: ServerConfig): Server {
  const checkEvery =
    config.requestTimeoutMs > 0 ? Math.max(100, Math.min(config.requestTimeoutMs / 2, 30_000)) : 30_000;
  const server = createServer({ connectionsCheckingInterval: checkEvery }, app.app);
  server.requestTimeout = config.requestTimeoutMs;
  server.headersTimeout = config.requestTimeoutMs > 0 ? Math.min(config.requestTimeoutMs, 30_000) : 30_000;
  server.keepAliveTimeout = 5_000;
  return server;
}

export async function startServer(config: ServerConfig, logger: Logger): Promise<RunningServer> {
  const socketPath = config.databaseUrl ? undefined : controlSocketPath(config);
  // Refuse before opening anything: two processes on one PGlite data directory would corrupt it.
  if (socketPath) await assertNoServerOn(socketPath);
  const db = await openConfiguredDatabase(config);
  let control: Server | undefined;
  try {
    await migrate(db);
    control = socketPath ? await startControlSocket(db, socketPath, logger) : undefined;
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
    throw error;
  }
  const address = server.address() as AddressInfo;
  const url = `http://${address.address.includes(":") ? `[${address.address}]` : address.address}:${address.port}`;
  logger.info({ url, store: db.kind, publicUrl: config.publicUrl }, "reference server listening");

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      logger.info("shutting down");
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
