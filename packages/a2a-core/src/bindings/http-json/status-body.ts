import { type A2AJsonResponse, JSON_HEADERS } from "../../ports/handler-response.js";
import { toV1Error } from "../../protocol/dialect/v1-errors.js";
import { toJsonRpcError } from "../../protocol/errors.js";

/** The HTTP status and `google.rpc.Code` name of each error code, as A2A v1.0 maps them for HTTP+JSON. */
const STATUS_BY_CODE: Readonly<Record<number, readonly [number, string]>> = {
  [-32700]: [400, "INVALID_ARGUMENT"],
  [-32600]: [400, "INVALID_ARGUMENT"],
  [-32601]: [404, "NOT_FOUND"],
  [-32602]: [400, "INVALID_ARGUMENT"],
  [-32603]: [500, "INTERNAL"],
  [-32001]: [404, "NOT_FOUND"],
  [-32002]: [400, "FAILED_PRECONDITION"],
  [-32003]: [400, "FAILED_PRECONDITION"],
  [-32004]: [400, "FAILED_PRECONDITION"],
  [-32005]: [415, "INVALID_ARGUMENT"],
  [-32006]: [500, "INTERNAL"],
  [-32007]: [400, "FAILED_PRECONDITION"],
  [-32008]: [400, "FAILED_PRECONDITION"],
  [-32009]: [400, "FAILED_PRECONDITION"],
};

/** The `google.rpc.Code` name that goes with an HTTP status the binding answers without an A2A code of its own. */
const STATUS_NAME_BY_HTTP: Readonly<Record<number, string>> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  405: "UNIMPLEMENTED",
  413: "INVALID_ARGUMENT",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

export interface StatusOptions {
  /** The HTTP status when it is not the error's own (a refusal: 401, 403, 413, 429, 503). */
  httpStatus?: number;
  headers?: Record<string, string>;
}

/**
 * An error as the HTTP+JSON binding answers it: the HTTP status of its code and a `google.rpc.Status`
 * body, `{ "error": { code, status, message, details } }`, whose details are the same `ErrorInfo`
 * (reason, domain `a2a-protocol.org`, metadata) and `BadRequest` the JSON-RPC binding's v1.0 dialect sends.
 */
export function statusAnswer(error: unknown, options: StatusOptions = {}): A2AJsonResponse {
  const v1 = toV1Error(toJsonRpcError(error));
  const [ownStatus, ownName] = STATUS_BY_CODE[v1.code] ?? [500, "INTERNAL"];
  const httpStatus = options.httpStatus ?? ownStatus;
  const statusName = options.httpStatus === undefined ? ownName : (STATUS_NAME_BY_HTTP[httpStatus] ?? ownName);
  return {
    kind: "json",
    status: httpStatus,
    headers: { ...JSON_HEADERS, ...options.headers },
    body: { error: { code: httpStatus, status: statusName, message: v1.message, details: v1.data } },
    errorCode: v1.code,
  };
}
