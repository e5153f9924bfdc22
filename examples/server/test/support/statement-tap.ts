import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy in front of PostgreSQL that records the SQL of every statement its clients execute, read
 * off the wire (the frontend protocol: a simple `Query`, or `Parse`/`Bind`/`Execute` of a named or unnamed
 * statement). A test points a server's DATABASE_URL at it to see what reached the primary, whatever
 * the driver or pool inside the server does.
 */
export interface StatementTap {
  readonly port: number;
  /** The connection string `url` with its host and port pointed at the tap. */
  proxied(url: string): string;
  /** The SQL of every statement executed since the tap started (or since the last `clear`), in order. */
  readonly executed: readonly string[];
  clear(): void;
  close(): Promise<void>;
}

export async function startStatementTap(target: { host: string; port: number }): Promise<StatementTap> {
  let executed: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("error", () => undefined);
      socket.once("close", () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    const reader = frontendReader((sql) => executed.push(sql));
    client.on("data", (chunk: Buffer) => {
      reader(chunk);
      upstream.write(chunk);
    });
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    proxied(url) {
      const proxied = new URL(url);
      proxied.hostname = "127.0.0.1";
      proxied.port = String(port);
      return proxied.toString();
    },
    get executed() {
      return executed;
    },
    clear() {
      executed = [];
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Feeds on one connection's client-to-server bytes and reports each executed statement's SQL. */
function frontendReader(onExecute: (sql: string) => void): (chunk: Buffer) => void {
  let pending = Buffer.alloc(0);
  let started = false; // the startup message (and an SSLRequest before it) carries no type byte
  const statements = new Map<string, string>();
  let bound = "";
  return (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    for (;;) {
      if (!started) {
        if (pending.length < 8) return;
        const length = pending.readInt32BE(0);
        if (pending.length < length) return;
        const code = pending.readInt32BE(4);
        pending = pending.subarray(length);
        if (code !== 80877103) started = true; // 80877103: SSLRequest, followed by the real startup
        continue;
      }
      if (pending.length < 5) return;
      const type = String.fromCharCode(pending[0] as number);
      const length = pending.readInt32BE(1);
      if (pending.length < 1 + length) return;
      const body = pending.subarray(5, 1 + length);
      pending = pending.subarray(1 + length);
      if (type === "Q") onExecute(cString(body, 0).text);
      if (type === "P") {
        const name = cString(body, 0);
        statements.set(name.text, cString(body, name.next).text);
      }
      if (type === "B") {
        const portal = cString(body, 0);
        bound = statements.get(cString(body, portal.next).text) ?? "";
      }
      if (type === "E") onExecute(bound);
    }
  };
}

function cString(buffer: Buffer, start: number): { text: string; next: number } {
  const end = buffer.indexOf(0, start);
  return { text: buffer.toString("utf8", start, end), next: end + 1 };
}
