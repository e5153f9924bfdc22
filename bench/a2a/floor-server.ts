/**
 * The floor under any Node SSE server, for `heap-per-stream.ts`: bare node:http, no framework, no store,
 * no task — each POST gets its headers and one `task` frame, and the response is held open. What an idle
 * stream costs here is what a single TCP connection with an open HTTP/1.1 response costs in Node itself.
 * Logs `{"msg":"bench server listening","url":…}` on stderr once it listens.
 */
import { randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import { listenAndAnnounce } from "./announce-listening.ts";

const held = new Set<ServerResponse>();
const server = createServer((req, res) => {
  req.resume();
  req.on("end", () => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const task = { kind: "task", id: randomUUID(), status: { state: "working" } };
    res.write(`event: task\ndata: ${JSON.stringify({ jsonrpc: "2.0", id: "1", result: task })}\n\n`);
    held.add(res);
    res.on("close", () => held.delete(res));
  });
});
listenAndAnnounce(server, Number(process.env.PORT ?? 0));
