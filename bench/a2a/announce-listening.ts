/**
 * The line a bench server script writes once it listens, and `startScriptServer` (targets.ts) waits for:
 * `{"msg":"bench server listening","url":…}` on stderr.
 */
import type { Server } from "node:net";

export const LISTENING_MESSAGE = "bench server listening";

/** Listens on 127.0.0.1:`port` (0: an ephemeral one) and announces the URL. */
export function listenAndAnnounce(server: Server, port: number, host = "127.0.0.1"): void {
  server.listen(port, host, () => {
    const address = server.address();
    const bound = typeof address === "object" && address ? address.port : 0;
    process.stderr.write(`${JSON.stringify({ msg: LISTENING_MESSAGE, url: `http://127.0.0.1:${bound}` })}\n`);
  });
}
