import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";
import { isEndpointPath } from "../bindings/http-json/routes.js";
import type { A2AHandler } from "../ports/handler.js";
import { JSON_HEADERS, type SseSink } from "../ports/handler-response.js";
import type { HeaderReader } from "../protocol/header-reader.js";
import { DISCARD_BOUNDS, decodeUtf8, isTooLarge, tooLarge } from "./read-body.js";

export interface NodeHandler {
  (req: IncomingMessage, res: ServerResponse): Promise<void>;
  /**
   * Whether a request URL is this endpoint's: its base path (JSON-RPC) or one of the HTTP+JSON binding's
   * routes below it. For a server's own router; without a `basePath` option, the root is the base.
   */
  serves(url: string | undefined): boolean;
}

export interface NodeHandlerOptions {
  /**
   * Headers added to every answer (security headers, say). Prefer this to `res.setHeader` before the
   * handler: headers given to node in one `writeHead` leave no per-response header map behind, which an
   * open stream would otherwise keep for its whole life (~0.7 KiB each, measured).
   */
  headers?: Readonly<Record<string, string>>;
  /**
   * The path the endpoint is mounted at, when node hands the handler whole paths (node:http, Express's
   * `app.all`): routes must be exactly below it. Default the handler's `basePath`; under Express's
   * `app.use(path, …)` none is needed (Express hands over the rest of the path).
   */
  basePath?: string;
}

/**
 * The handler for node:http (and Express, whose req/res are node's). It reads node's request and writes
 * node's response directly: no web Request/Response, no web streams, no signal per request. Each SSE
 * frame is written (and so flushed) as it happens. Mount it before any body parser; if one already ran,
 * its `req.body` is used.
 */
export function toNodeHandler(handler: A2AHandler, options: NodeHandlerOptions = {}): NodeHandler {
  const extra = options.headers ?? {};
  const withExtra = (headers: Record<string, string>) => (options.headers ? { ...extra, ...headers } : headers);
  const { basePath } = options;
  const node = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // Watched from the first moment: a client that leaves while its request is still being handled must
    // still give its stream (and stream slot) back.
    let gone = false;
    let stopStream: (() => void) | undefined;
    res.once("close", () => {
      gone = true;
      stopStream?.();
    });
    let oversized = false;
    // The body is read only once the handler has authenticated the caller from the headers.
    const answer = await handler.handle({
      headers: nodeHeaders(req.headers),
      body: () =>
        readBody(req, handler.maxBodyBytes).catch((error: unknown) => {
          oversized = isTooLarge(error);
          throw error;
        }),
      ...(req.url === undefined ? {} : { url: req.url }),
      ...(req.method === undefined ? {} : { method: req.method }),
      ...(basePath === undefined ? {} : { basePath }),
    });
    if (answer.kind === "json") {
      // Answered before the whole body was read (413, 401 …): the unread rest would corrupt the next request
      // on this connection, so it is not reused. A body refused as too large is read to its end first (within
      // DISCARD_BOUNDS), so that the client, still writing it, gets to read the 413 (read-body.ts).
      const complete = req.complete;
      if (oversized && !complete) await discardRest(req);
      if (!gone)
        writeJson(
          res,
          answer.status,
          answer.body,
          withExtra(complete ? answer.headers : { ...answer.headers, connection: "close" }),
        );
      return;
    }
    // The headers leave together with the first frame, which the stream writes at once.
    res.writeHead(answer.status, withExtra(answer.headers));
    stopStream = answer.start(new NodeSink(res));
    if (gone) stopStream();
    // Once the first frame has left (node sends it when this turn's work is done), not before it.
    setImmediate(flattenStoredHeader, res);
  };
  const served = basePath ?? "/";
  return Object.assign(node, { serves: (url: string | undefined) => url !== undefined && isEndpointPath(url, served) });
}

/**
 * node keeps the header block of a response (`_header`) for the response's whole life, built as a tree
 * of ~40 joined pieces (~1.3 KiB of heap); an open stream holds it for hours. The same text as one flat
 * string is a quarter of that. Only the representation changes, never the text, and only when node
 * stores it where it always has: otherwise nothing is touched.
 */
function flattenStoredHeader(res: ServerResponse): void {
  const stored = res as ServerResponse & { _header?: unknown };
  // Header text is latin1 by HTTP's rules (node refuses other characters), so the round trip is exact.
  if (typeof stored._header === "string") stored._header = Buffer.from(stored._header, "latin1").toString("latin1");
}

/** A stream's connection. A class: held by every open stream, and an instance is smaller than a literal with a getter. */
class NodeSink implements SseSink {
  readonly #res: ServerResponse;

  constructor(res: ServerResponse) {
    this.#res = res;
  }

  write(chunk: string): void {
    // After a disconnect, the close handler ends the stream; until then writes go nowhere.
    if (!this.#res.destroyed) this.#res.write(chunk);
  }

  get backlog(): number {
    return this.#res.writableLength;
  }

  end(): void {
    this.#res.end();
  }

  abort(): void {
    this.#res.destroy();
  }
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

/** Reads what is left of the request and drops it, within DISCARD_BOUNDS. */
function discardRest(req: IncomingMessage): Promise<void> {
  if (req.destroyed || Number(req.headers["content-length"]) > DISCARD_BOUNDS.bytes) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", done);
      req.off("error", done);
      req.off("close", done);
      req.pause();
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DISCARD_BOUNDS.bytes) done();
    };
    const timer = setTimeout(done, DISCARD_BOUNDS.ms);
    req.on("data", onData);
    req.once("end", done);
    req.once("error", done);
    req.once("close", done);
    req.resume();
  });
}
