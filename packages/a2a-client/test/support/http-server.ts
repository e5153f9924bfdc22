// Test-only: a scripted A2A server on node:http (real sockets, so the client's default fetch and
// keep-alive dispatcher are exercised end to end).
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface SeenHttpRequest {
  method: string;
  params: Record<string, unknown>;
  headers: IncomingMessage["headers"];
}

export type Responder = (n: number, request: SeenHttpRequest, res: ServerResponse) => void | Promise<void>;

export interface ScriptedServer {
  baseUrl: string;
  seen: SeenHttpRequest[];
  /** TCP connections accepted so far. */
  connections(): number;
  /** TCP connections currently open. */
  openConnections(): number;
  close(): Promise<void>;
}

export async function startScriptedServer(respond: Responder): Promise<ScriptedServer> {
  const seen: SeenHttpRequest[] = [];
  let connections = 0;
  const server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const parsed = JSON.parse(body) as { method: string; params: Record<string, unknown> };
    const request = { method: parsed.method, params: parsed.params, headers: req.headers };
    seen.push(request);
    await respond(seen.length - 1, request, res);
  });
  let open = 0;
  server.on("connection", (socket) => {
    connections++;
    open++;
    socket.on("close", () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    seen,
    connections: () => connections,
    openConnections: () => open,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes SSE frames; `drop` then destroys the socket mid-stream, `end` closes cleanly. */
export function writeSse(res: ServerResponse, frames: string[], then: "end" | "drop" | "open" = "end"): void {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  for (const frame of frames) res.write(frame);
  if (then === "end") res.end();
  else if (then === "drop") setTimeout(() => res.socket?.destroy(), 10);
}

export function writeJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}
