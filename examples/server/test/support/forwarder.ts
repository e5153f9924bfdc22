import { connect, createServer, type Server as NetServer, type Socket } from "node:net";

/** A plain TCP forwarder: its address is known before the server starts, so the card can name it. */
export async function startForwarder(): Promise<{
  url: string;
  setTarget(port: number): void;
  close(): Promise<void>;
}> {
  let target = 0;
  const sockets = new Set<Socket>();
  const server: NetServer = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.pipe(to);
      from.on("error", () => to.destroy());
      from.on("close", () => {
        to.destroy();
        sockets.delete(from);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (!address || typeof address === "string") throw new Error("no address");
  return {
    url: `http://127.0.0.1:${address.port}`,
    setTarget: (port) => {
      target = port;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
