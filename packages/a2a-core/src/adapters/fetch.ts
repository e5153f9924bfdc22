import type { A2AHandler } from "../ports/handler.js";
import { type A2AHandlerResponse, JSON_HEADERS } from "../ports/handler-response.js";
import { discardBody, isTooLarge, readBodyText } from "./read-body.js";

export type FetchHandler = (request: Request) => Promise<Response>;

export interface FetchHandlerOptions {
  /** The path the endpoint is mounted at (see `A2AHandlerOptions.basePath`); default the handler's. */
  basePath?: string;
}

/**
 * The handler on web-standard Request/Response: mount it on Bun, Deno, edge runtimes and hono. For
 * node:http and Express use `toNodeHandler(handler)` from the `/node` entry: it takes the handler itself
 * (not this fetch handler) and serves node's req/res directly. JSON-RPC is POST to the mount's own path
 * (405 for other methods); the HTTP+JSON routes are exactly the paths below `basePath`
 * (`/message:stream`, `GET /tasks/{id}`, …).
 */
export function toFetchHandler(handler: A2AHandler, options: FetchHandlerOptions = {}): FetchHandler {
  const { basePath } = options;
  return async (request) => {
    const declared = request.headers.get("content-length");
    let oversized = false;
    // The body is read only once the handler has authenticated the caller from the headers.
    const answer = await handler.handle({
      headers: request.headers,
      body: () =>
        readBodyText(request.body, handler.maxBodyBytes, declared).catch((error: unknown) => {
          oversized = isTooLarge(error);
          throw error;
        }),
      url: request.url,
      method: request.method,
      ...(basePath === undefined ? {} : { basePath }),
    });
    // The client must finish sending a body refused as too large before it can read the 413 (read-body.ts,
    // DISCARD_BOUNDS). The connection itself is the runtime's: no hop-by-hop header from here.
    if (oversized && request.body) await discardBody(request.body, declared);
    return toResponse(answer, request.signal);
  };
}

function toResponse(answer: A2AHandlerResponse, clientGone: AbortSignal): Response {
  if (answer.kind === "json") return jsonResponse(answer.status, answer.body, answer.headers);
  const encoder = new TextEncoder();
  let stop: (() => void) | undefined;
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stop = answer.start({
          // A canceled body refuses further calls; the stream has ended by then, so they are ignored.
          write(chunk) {
            try {
              controller.enqueue(encoder.encode(chunk));
            } catch {}
          },
          // desiredSize is the high-water mark (0) minus the bytes the client has not read yet.
          get backlog() {
            return Math.max(0, -(controller.desiredSize ?? 0));
          },
          end() {
            try {
              controller.close();
            } catch {}
          },
          abort() {
            try {
              controller.error(new Error("The client fell too far behind the stream"));
            } catch {}
          },
        });
        if (clientGone.aborted) stop();
        else clientGone.addEventListener("abort", () => stop?.(), { once: true });
      },
      cancel() {
        stop?.();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
  return new Response(body, { status: answer.status, headers: answer.headers });
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}
