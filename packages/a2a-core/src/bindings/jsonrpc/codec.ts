import { type A2AError, InvalidRequestError, MethodNotFoundError, toJsonRpcError } from "../../protocol/errors.js";
import { A2A_LIMITS } from "../../protocol/limits.js";
import { type MethodName, resolveMethod, WIRE_METHOD_NAMES } from "../../protocol/method-table.js";
import type { JsonRpcErrorResponse, JsonRpcId, JsonRpcSuccessResponse } from "../../protocol/schemas/jsonrpc.js";
import { parseJsonBody } from "../json-body.js";

/** A request whose envelope is valid and whose method is known; its params are checked by the method. */
export interface DecodedRequest {
  id: JsonRpcId;
  /** The current name the wire name resolved to. */
  method: MethodName;
  /** The name as sent (current name or alias). */
  wireMethod: string;
  params: Record<string, unknown>;
}

export type DecodeResult = { ok: true; request: DecodedRequest } | { ok: false; error: A2AError; id: JsonRpcId | null };

/**
 * Raw body → a validated request or the error to answer with. Bad JSON is -32700 with `id: null`; a
 * non-envelope (batch arrays included: this endpoint streams, so batches are not supported) is -32600;
 * an unknown method is -32601 (answered with the request's id).
 */
export function decodeJsonRpcRequest(body: string | unknown): DecodeResult {
  let value: unknown = body;
  if (typeof body === "string") {
    const parsed = parseJsonBody(body);
    if (!parsed.ok) return { ok: false, error: parsed.error, id: null };
    value = parsed.value;
  }
  if (Array.isArray(value)) {
    return {
      ok: false,
      error: new InvalidRequestError("Invalid request: batch requests are not supported"),
      id: null,
    };
  }
  if (typeof value !== "object" || value === null) {
    return { ok: false, error: new InvalidRequestError("Invalid request: the body must be a JSON object"), id: null };
  }
  const envelope = value as Record<string, unknown>;
  const id = validId(envelope.id);
  // The id is echoed only when it is itself valid; otherwise the spec says answer with null.
  const replyId = id ?? null;
  if (envelope.jsonrpc !== "2.0") {
    return { ok: false, error: invalidRequest("jsonrpc", 'must be the string "2.0"'), id: replyId };
  }
  if (id === undefined) {
    const reason = "id" in envelope ? "must be a string or a number" : "is required (notifications are not supported)";
    return { ok: false, error: invalidRequest("id", reason), id: null };
  }
  if (typeof envelope.method !== "string" || envelope.method.length === 0) {
    return { ok: false, error: invalidRequest("method", "must be a non-empty string"), id };
  }
  const params = envelope.params;
  if (params !== undefined && (typeof params !== "object" || params === null || Array.isArray(params))) {
    return { ok: false, error: invalidRequest("params", "must be an object"), id };
  }
  const method = resolveMethod(envelope.method);
  if (!method) return { ok: false, error: MethodNotFoundError.forMethod(envelope.method, WIRE_METHOD_NAMES), id };
  return {
    ok: true,
    request: { id, method, wireMethod: envelope.method, params: (params as Record<string, unknown>) ?? {} },
  };
}

function validId(id: unknown): JsonRpcId | undefined {
  if (typeof id === "string") return id.length <= A2A_LIMITS.requestIdLength ? id : undefined;
  if (typeof id === "number" && Number.isFinite(id)) return id;
  return undefined;
}

function invalidRequest(field: string, reason: string): InvalidRequestError {
  return new InvalidRequestError(`Invalid request: ${field} ${reason}`, { field });
}

export function jsonRpcResult(id: JsonRpcId | null, result: unknown): JsonRpcSuccessResponse {
  return { jsonrpc: "2.0", id, result };
}

export function jsonRpcError(id: JsonRpcId | null, error: unknown): JsonRpcErrorResponse {
  return { jsonrpc: "2.0", id, error: toJsonRpcError(error) };
}
