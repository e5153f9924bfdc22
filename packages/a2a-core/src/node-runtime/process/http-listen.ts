import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** The bounds a server's HTTP listener applies to its connections. */
export interface HttpServerLimits {
  /** Time a client has to send a whole request (headers and body); 0: none. Never cuts a response. */
  requestTimeoutMs: number;
  /** Open connections (streams included) accepted at once; more are closed at once. 0: no bound. */
  maxConnections: number;
}

/**
 * A node:http server for `listener`. requestTimeout bounds receiving a request (slow-loris uploads) and is
 * checked often enough to matter; it never cuts a response, so SSE streams live as long as they need.
 * Idle keep-alive sockets close after 5 s.
 */
export function createHttpServer(listener: RequestListener, limits: HttpServerLimits): Server {
  const timeout = limits.requestTimeoutMs;
  const checkEvery = timeout > 0 ? Math.max(100, Math.min(timeout / 2, 30_000)) : 30_000;
  const server = createServer({ connectionsCheckingInterval: checkEvery }, listener);
  server.requestTimeout = timeout;
  server.headersTimeout = timeout > 0 ? Math.min(timeout, 30_000) : 30_000;
  server.keepAliveTimeout = 5_000;
  // Past the bound node closes new connections at once: a flood cannot exhaust the process's sockets.
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  return server;
}

/** Where to listen, and the names of the settings an operator changes when it cannot. */
export interface ListenOptions {
  port: number;
  host: string;
  /** The settings named in the errors; default `PORT` and `HOST`. */
  settings?: { port: string; host: string };
}

/**
 * Listens, and answers the server's URL (`http://host:port`, IPv6 in brackets). A port another process
 * holds, or one this user may not bind, is an error that names the setting to change (the bare
 * `listen EADDRINUSE` named neither).
 */
export async function listenHttp(server: Server, options: ListenOptions): Promise<string> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port, options.host, () => resolve());
    });
  } catch (error) {
    throw listenRefused(error, options) ?? error;
  }
  const address = server.address() as AddressInfo;
  return `http://${address.address.includes(":") ? `[${address.address}]` : address.address}:${address.port}`;
}

function listenRefused(error: unknown, { port, host, settings }: ListenOptions): Error | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const PORT = settings?.port ?? "PORT";
  const HOST = settings?.host ?? "HOST";
  if (code === "EADDRINUSE") {
    return new Error(
      `${PORT}=${port} is already in use on ${host} (another server running?): stop it, or set ${PORT} ` +
        `to a free port (${PORT}=0 picks one)`,
      { cause: error },
    );
  }
  if (code === "EACCES") {
    return new Error(`cannot listen on ${host}:${port}: permission denied; set ${PORT} to 1024 or above`, {
      cause: error,
    });
  }
  if (code === "EADDRNOTAVAIL") {
    return new Error(`${HOST}=${host} is not an address of this machine; set ${HOST} to one (e.g. 127.0.0.1)`, {
      cause: error,
    });
  }
  return undefined;
}
