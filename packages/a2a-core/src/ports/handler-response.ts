import type { JsonRpcResponse } from "../protocol/schemas/jsonrpc.js";

/** What the framework-agnostic handler answers; adapters turn it into their framework's response. */
export type A2AHandlerResponse = A2AJsonResponse | A2AStreamResponse;

export interface A2AJsonResponse {
  kind: "json";
  status: number;
  headers: Record<string, string>;
  /**
   * A JSON-RPC response (the JSON-RPC binding), or an HTTP+JSON resource or `google.rpc.Status` error
   * body (the HTTP+JSON binding); adapters write it as it is.
   */
  body: JsonRpcResponse | HttpJsonBody;
  /** The A2A error code of an HTTP+JSON error answer (its body carries the HTTP status instead). */
  errorCode?: number;
}

/** A body of the HTTP+JSON binding: a Task, a page of tasks, or `{ error: google.rpc.Status }`. */
export type HttpJsonBody = { readonly [key: string]: unknown };

/**
 * Where a stream writes: the adapter's connection. Writes are synchronous; the stream never waits for
 * the client. A client whose unread backlog stays over the bound is dropped (it reattaches with
 * Last-Event-ID and loses nothing).
 */
export interface SseSink {
  /** Queues one chunk (SSE frames or a comment) for the client. */
  write(chunk: string): void;
  /** Bytes (or characters) written but not yet taken by the client. */
  readonly backlog: number;
  /** Ends the response cleanly. */
  end(): void;
  /** Drops the connection (a client too far behind). */
  abort(): void;
}

export interface A2AStreamResponse {
  kind: "sse";
  status: 200;
  headers: Record<string, string>;
  /**
   * Starts the stream: the `task` frame is written to `sink` at once, then the rest as it happens, until
   * `final` (or shutdown). Call it exactly once; call the function it returns when the client goes away.
   */
  start(sink: SseSink): () => void;
  /**
   * The same stream as an async iterable of encoded frames and keep-alive comments, for code that pulls
   * (tests, custom adapters). Iterating starts it; `return()` (a `break`) stops it.
   */
  frames: AsyncIterable<string>;
}

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};

export const JSON_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
};
