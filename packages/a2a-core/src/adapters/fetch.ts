import { InvalidRequestError, ParseError } from "../errors.js";
import type { A2AHandler } from "../handler/create-handler.js";
import { type A2AHandlerResponse, JSON_HEADERS } from "../handler/response.js";
import { jsonRpcError } from "../jsonrpc/codec.js";
import { BodyReadError, readBodyText } from "./read-body.js";

export type FetchHandler = (request: Request) => Promise<Response>;

/**
 * The handler on web-standard Request/Response: mount it on Bun, Deno, edge runtimes, hono, or wrap it
 * with `toNodeHandler` for node:http and Express. Only POST is answered (405 otherwise).
 */
export function toFetchHandler(handler: A2AHandler): FetchHandler {
  return async (request) => {
    if (request.method !== "POST") {
      return jsonResponse(405, jsonRpcError(null, new InvalidRequestError("Use POST for JSON-RPC requests")), {
        allow: "POST",
      });
    }
    let body: string;
    try {
      body = await readBodyText(request.body, handler.maxBodyBytes, request.headers.get("content-length"));
    } catch (error) {
      if (error instanceof BodyReadError && error.reason === "too-large") {
        return jsonResponse(413, jsonRpcError(null, new InvalidRequestError(error.message)));
      }
      if (error instanceof BodyReadError) return jsonResponse(200, jsonRpcError(null, new ParseError(error.message)));
      return jsonResponse(400, jsonRpcError(null, new InvalidRequestError("The request body could not be read")));
    }
    // The stream ends when the client goes away (request.signal) or when the response body is canceled.
    const disconnect = new AbortController();
    const signal = AbortSignal.any([request.signal, disconnect.signal]);
    const answer = await handler.handle({ headers: request.headers, body, signal });
    return toResponse(answer, disconnect);
  };
}

function toResponse(answer: A2AHandlerResponse, disconnect: AbortController): Response {
  if (answer.kind === "json") return jsonResponse(answer.status, answer.body, answer.headers);
  const iterator = answer.frames[Symbol.asyncIterator]();
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const next = await iterator.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (error) {
          controller.error(error);
        }
      },
      async cancel() {
        disconnect.abort();
        await iterator.return?.();
      },
    },
    // One frame at a time: nothing is read from the log before the client can take it.
    { highWaterMark: 0 },
  );
  return new Response(body, { status: answer.status, headers: answer.headers });
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
}
