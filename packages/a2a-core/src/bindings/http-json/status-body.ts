import { type A2AJsonResponse, JSON_HEADERS } from "../../ports/handler-response.js";
import { rpcStatusOf } from "../rpc-status.js";

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
  const status = rpcStatusOf(error, options.httpStatus);
  return {
    kind: "json",
    status: status.httpStatus,
    headers: { ...JSON_HEADERS, ...options.headers },
    body: {
      error: { code: status.httpStatus, status: status.status, message: status.message, details: status.details },
    },
    errorCode: status.errorCode,
  };
}
