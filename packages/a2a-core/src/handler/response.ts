import type { JsonRpcResponse } from "../schemas/jsonrpc.js";

/** What the framework-agnostic handler answers; adapters turn it into their framework's response. */
export type A2AHandlerResponse = A2AJsonResponse | A2AStreamResponse;

export interface A2AJsonResponse {
  kind: "json";
  status: number;
  headers: Record<string, string>;
  body: JsonRpcResponse;
}

export interface A2AStreamResponse {
  kind: "sse";
  status: 200;
  headers: Record<string, string>;
  /** Encoded SSE frames (and keep-alive comments). Ends after the `final` frame or when the request aborts. */
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
