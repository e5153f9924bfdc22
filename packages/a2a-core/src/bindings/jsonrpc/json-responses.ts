import { BodyReadError } from "../../ports/body-read-error.js";
import { type A2AJsonResponse, JSON_HEADERS } from "../../ports/handler-response.js";
import { InternalError, InvalidRequestError, ParseError } from "../../protocol/errors.js";
import type { JsonRpcId } from "../../protocol/schemas/jsonrpc.js";
import { retryAfterHeaders } from "../retry-after.js";
import { jsonRpcError, jsonRpcResult } from "./codec.js";

/** A JSON-RPC answer with HTTP 200: the result, or the protocol error. */
export function jsonAnswer(id: JsonRpcId | null, error: unknown, result?: unknown): A2AJsonResponse {
  const body = error === undefined ? jsonRpcResult(id, result) : jsonRpcError(id, error);
  return { kind: "json", status: 200, headers: { ...JSON_HEADERS }, body };
}

/** HTTP 429 with Retry-After (seconds) and Retry-After-Ms. */
export function tooManyRequests(retryAfterMs: number, message: string): A2AJsonResponse {
  return {
    kind: "json",
    status: 429,
    headers: { ...JSON_HEADERS, ...retryAfterHeaders(retryAfterMs) },
    body: jsonRpcError(null, new InvalidRequestError(message, { httpStatus: 429, retryAfterMs })),
  };
}

/** HTTP 503 + Retry-After with a bare -32603: a condition the caller may retry (an outage, a shutdown). */
export function unavailable(message: string, id: JsonRpcId | null = null): A2AJsonResponse {
  return {
    kind: "json",
    status: 503,
    headers: { ...JSON_HEADERS, "retry-after": "1" },
    body: jsonRpcError(id, new InternalError(message)),
  };
}

/** 401 (with WWW-Authenticate) or 403, as a JSON-RPC error with id null. */
export function authFailure(status: 401 | 403, message: string): A2AJsonResponse {
  const headers: Record<string, string> = { ...JSON_HEADERS };
  if (status === 401) headers["www-authenticate"] = 'Bearer realm="a2a"';
  return {
    kind: "json",
    status,
    headers,
    body: jsonRpcError(null, new InvalidRequestError(message, { httpStatus: status })),
  };
}

/** The answer to a body that could not be read: 413 over the limit, -32700 not UTF-8, else 400. */
export function bodyRefusal(error: unknown): A2AJsonResponse {
  const answer = (status: number, body: ReturnType<typeof jsonRpcError>): A2AJsonResponse => ({
    kind: "json",
    status,
    headers: { ...JSON_HEADERS },
    body,
  });
  if (error instanceof BodyReadError && error.reason === "too-large") {
    return answer(413, jsonRpcError(null, new InvalidRequestError(error.message)));
  }
  if (error instanceof BodyReadError) return answer(200, jsonRpcError(null, new ParseError(error.message)));
  return answer(400, jsonRpcError(null, new InvalidRequestError("The request body could not be read")));
}
