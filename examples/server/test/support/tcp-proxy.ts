import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of PostgreSQL that a test can cut and restore, so a server process can lose its
 * database without anyone stopping the machine's PostgreSQL (other suites use it at the same time).
 *
 * - `open`: every connection is forwarded to the target.
 * - `refuse`: a new connection is reset at once (what a client sees while the database host is down).
 * - `blackhole`: a new connection is accepted and never answered (a network partition); the client's
 *   own connect timeout is all that ends it.
 */
export type ProxyMode = "open" | "refuse" | "blackhole";

export interface TcpProxy {
  readonly port: number;
  readonly mode: ProxyMode;
  /** The connection string `url` with its host and port pointed at the proxy. */
  proxied(url: string): string;
  /** Outage: resets every forwarded connection, and from now on refuses or blackholes new ones. */
  cut(mode: "refuse" | "blackhole"): void;
  /** Recovery: forwards new connections again; connections held in the blackhole are dropped. */
  restore(): void;
  /** Connections forwarded to the target since the proxy started. */
  readonly forwarded: number;
  /** Connections refused or blackholed since the proxy started. */
  readonly turnedAway: number;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = "open";
  let forwarded = 0;
  let turnedAway = 0;
  const pairs = new Set<{ client: Socket; upstream: Socket }>();
  const held = new Set<Socket>();

  const server = createServer((client) => {
    // A socket without an 'error' listener would crash the test process on its first reset.
    client.on("error", () => undefined);
    if (mode === "refuse") {
      turnedAway++;
      client.resetAndDestroy();
      return;
    }
    if (mode === "blackhole") {
      turnedAway++;
      client.pause();
      held.add(client);
      client.once("close", () => held.delete(client));
      return;
    }
    forwarded++;
    const upstream = connect(target.port, target.host);
    upstream.on("error", () => undefined);
    const pair = { client, upstream };
    pairs.add(pair);
    const drop = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.once("close", drop);
    upstream.once("close", drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  server.on("error", () => undefined);

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("the proxy has no TCP address");
  const port = address.port;

  const dropHeld = () => {
    for (const socket of held) socket.destroy();
    held.clear();
  };

  return {
    port,
    get mode() {
      return mode;
    },
    get forwarded() {
      return forwarded;
    },
    get turnedAway() {
      return turnedAway;
    },
    proxied(url) {
      const u = new URL(url);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      return u.toString();
    },
    cut(outage) {
      mode = outage;
      // RST towards the server (its driver sees the connection reset), FIN towards PostgreSQL (the backend
      // ends the session and rolls back whatever transaction was open on it).
      for (const { client, upstream } of [...pairs]) {
        client.resetAndDestroy();
        upstream.destroy();
      }
      pairs.clear();
    },
    restore() {
      mode = "open";
      dropHeld();
    },
    async close() {
      mode = "refuse";
      dropHeld();
      for (const { client, upstream } of [...pairs]) {
        client.destroy();
        upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
