import { toV1Error } from "../protocol/dialect/v1-errors.js";
import { toJsonRpcError } from "../protocol/errors.js";

/**
 * The HTTP status and `google.rpc.Code` name of each error code, as A2A v1.0 maps them (specification
 * §5.4; the HTTP+JSON and gRPC bindings both read it).
 */
const STATUS_BY_CODE: Readonly<Record<number, readonly [number, RpcCodeName]>> = {
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

/** The `google.rpc.Code` that goes with an HTTP status answered without an A2A code of its own. */
const STATUS_NAME_BY_HTTP: Readonly<Record<number, RpcCodeName>> = {
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

/** The `google.rpc.Code` values this protocol answers with (gRPC's status codes). */
export const RPC_CODES = {
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

export type RpcCodeName = keyof typeof RPC_CODES;

/** An error as a `google.rpc.Status`, with the HTTP status the HTTP+JSON binding answers it with. */
export interface RpcStatus {
  httpStatus: number;
  status: RpcCodeName;
  message: string;
  /** `ErrorInfo` (reason, domain `a2a-protocol.org`, metadata) and, for -32602, `BadRequest`, as JSON. */
  details: unknown;
  /** The A2A error code. */
  errorCode: number;
}

/**
 * An error as a `google.rpc.Status`: the code of its A2A error code, or, for a refusal answered with an
 * HTTP status of its own (401, 403, 413, 429, 503), that status's code; the details are the v1.0
 * dialect's (`toV1Error`).
 */
export function rpcStatusOf(error: unknown, httpStatus?: number): RpcStatus {
  const v1 = toV1Error(toJsonRpcError(error));
  const [ownStatus, ownName] = STATUS_BY_CODE[v1.code] ?? [500, "INTERNAL"];
  const status = httpStatus === undefined ? ownName : (STATUS_NAME_BY_HTTP[httpStatus] ?? ownName);
  return { httpStatus: httpStatus ?? ownStatus, status, message: v1.message, details: v1.data, errorCode: v1.code };
}
