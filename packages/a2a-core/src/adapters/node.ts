import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { InvalidRequestError } from "../errors.js";
import type { A2AHandler } from "../handler/create-handler.js";
import { JSON_HEADERS } from "../handler/response.js";
import { jsonRpcError } from "../jsonrpc/codec.js";
import { type FetchHandler, toFetchHandler } from "./fetch.js";

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/**
 * The handler for node:http (and Express, whose req/res are node's): converts the request to a web
 * Request once and writes the web Response back, flushing each SSE frame as it is produced. Mount it
 * before any body parser; if one already ran, its `req.body` is used.
 */
export function toNodeHandler(handler: A2AHandler | FetchHandler): NodeHandler {
  const fetchHandler = typeof handler === "function" ? handler : toFetchHandler(handler);
  return async (req, res) => {
    const closed = new AbortController();
    res.on("close", () => closed.abort());
    let response: Response;
    try {
      response = await fetchHandler(toWebRequest(req, closed.signal));
    } catch {
      // The handler never throws; only a request node accepted but fetch cannot represent gets here.
      if (!res.headersSent) res.writeHead(400, { ...JSON_HEADERS, connection: "close" });
      res.end(JSON.stringify(jsonRpcError(null, new InvalidRequestError("The HTTP request could not be read"))));
      return;
    }
    // Answered before the whole body was read (413): the unread rest would corrupt the next request on
    // this connection, so it must not be reused.
    await writeWebResponse(response, res, closed.signal, req.complete ? {} : { connection: "close" });
  };
}

function toWebRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  // The handler never reads the URL's host; a fixed origin keeps a hostile Host header from mattering.
  const url = new URL(req.url ?? "/", "http://localhost").href;
  const method = req.method ?? "GET";
  const init: RequestInit & { duplex?: "half" } = { method, headers, signal };
  if (method !== "GET" && method !== "HEAD") {
    const parsed = (req as IncomingMessage & { body?: unknown }).body;
    if (parsed !== undefined && req.readableEnded) {
      // A body parser already consumed the stream: use what it kept.
      init.body =
        typeof parsed === "string"
          ? parsed
          : parsed instanceof Uint8Array
            ? Buffer.from(parsed).toString("utf8")
            : JSON.stringify(parsed);
      headers.delete("content-length");
    } else {
      init.body = Readable.toWeb(req) as ReadableStream<Uint8Array>;
      init.duplex = "half";
    }
  }
  return new Request(url, init);
}

async function writeWebResponse(
  response: Response,
  res: ServerResponse,
  closed: AbortSignal,
  extraHeaders: Record<string, string>,
): Promise<void> {
  const headers: Record<string, string> = { ...extraHeaders };
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  res.writeHead(response.status, headers);
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  const onClose = () => void reader.cancel().catch(() => {});
  closed.addEventListener("abort", onClose, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      // Each SSE frame is written (and so flushed) as soon as it exists; wait when the socket is full.
      if (!res.write(value))
        await new Promise<void>((resolve) => {
          const resume = () => {
            res.off("drain", resume);
            res.off("close", resume);
            resolve();
          };
          res.once("drain", resume);
          res.once("close", resume);
        });
      if (closed.aborted) break;
    }
  } catch {
    // The client went away or the stream failed: nothing more to write.
  } finally {
    closed.removeEventListener("abort", onClose);
    res.end();
  }
}
