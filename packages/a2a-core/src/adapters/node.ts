import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { InvalidRequestError } from "../errors.js";
import type { A2AHandler } from "../handler/create-handler.js";
import type { HeaderReader } from "../handler/options.js";
import { JSON_HEADERS, type SseSink } from "../handler/response.js";
import { jsonRpcError } from "../internal/jsonrpc/codec.js";
import { decodeUtf8, tooLarge } from "../internal/read-body.js";

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The handler for node:http (and Express, whose req/res are node's). It reads node's request and writes
 * node's response directly: no web Request/Response, no web streams, no signal per request. Each SSE
 * frame is written (and so flushed) as it happens. Mount it before any body parser; if one already ran,
 * its `req.body` is used.
 */
export function toNodeHandler(handler: A2AHandler): NodeHandler {
  return async (req, res) => {
    if (req.method !== "POST") {
      writeJson(res, 405, jsonRpcError(null, new InvalidRequestError("Use POST for JSON-RPC requests")), {
        allow: "POST",
      });
      return;
    }
    // Watched from the first moment: a client that leaves while its request is still being handled must
    // still give its stream (and stream slot) back.
    let gone = false;
    let stopStream: (() => void) | undefined;
    res.once("close", () => {
      gone = true;
      stopStream?.();
    });
    // The body is read only once the handler has authenticated the caller from the headers.
    const answer = await handler.handle({
      headers: nodeHeaders(req.headers),
      body: () => readBody(req, handler.maxBodyBytes),
      ...(req.url === undefined ? {} : { url: req.url }),
    });
    if (answer.kind === "json") {
      // Answered before the whole body was read (401, 413 …): the unread rest would corrupt the next
      // request on this connection, so it is not reused.
      if (!gone)
        writeJson(
          res,
          answer.status,
          answer.body,
          req.complete ? answer.headers : { ...answer.headers, connection: "close" },
        );
      return;
    }
    // The headers leave together with the first frame, which the stream writes at once.
    res.writeHead(answer.status, answer.headers);
    stopStream = answer.start(nodeSink(res));
    if (gone) stopStream();
  };
}

function nodeSink(res: ServerResponse): SseSink {
  return {
    write(chunk) {
      // After a disconnect, the close handler ends the stream; until then writes go nowhere.
      if (!res.destroyed) res.write(chunk);
    },
    get backlog() {
      return res.writableLength;
    },
    end() {
      res.end();
    },
    abort() {
      res.destroy();
    },
  };
}

function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(status, { ...JSON_HEADERS, ...headers });
  res.end(JSON.stringify(body));
}

/** A view of node's already-lower-cased header object with the `get` of a web `Headers`. */
function nodeHeaders(raw: IncomingHttpHeaders): HeaderReader {
  return {
    get(name) {
      const value = raw[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

/** The body as UTF-8 text, refused as soon as it exceeds `maxBytes` (or declares that it will). */
function readBody(req: IncomingMessage, maxBytes: number): Promise<string> {
  const parsed = (req as IncomingMessage & { body?: unknown }).body;
  if (parsed !== undefined && req.readableEnded) {
    // A body parser already consumed the stream: use what it kept, within the same limit.
    try {
      const text =
        typeof parsed === "string"
          ? parsed
          : parsed instanceof Uint8Array
            ? decodeUtf8(parsed)
            : (JSON.stringify(parsed) ?? "");
      if (Buffer.byteLength(text) > maxBytes) throw tooLarge(maxBytes);
      return Promise.resolve(text);
    } catch (error) {
      return Promise.reject(error);
    }
  }
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.reject(tooLarge(maxBytes));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        // Stop reading; the answer closes the connection.
        req.pause();
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      try {
        resolve(decodeUtf8(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
      } catch (error) {
        reject(error);
      }
    };
    const onError = (error: Error) => {
      cleanup();
      reject(error);
    };
    const cleanup = () => {
      req.off("data", onData);
      req.off("end", onEnd);
      req.off("error", onError);
      req.off("aborted", onAborted);
    };
    const onAborted = () => onError(new Error("the client aborted the request"));
    req.on("data", onData);
    req.on("end", onEnd);
    req.on("error", onError);
    req.on("aborted", onAborted);
  });
}
