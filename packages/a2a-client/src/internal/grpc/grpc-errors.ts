import { fromJsonRpcError, type JsonRpcErrorObject } from "@a2a-partner/a2a-core";
import { decodeGrpcStatus } from "@a2a-partner/a2a-core/grpc";
import { fromHttpJsonStatus, fromV1Error } from "@a2a-partner/a2a-core/protocol";
import { status as GrpcStatus, type Metadata, type ServiceError } from "@grpc/grpc-js";
import { A2AHttpError, APIConnectionError } from "../../errors.js";

/**
 * The HTTP status A2A v1.0 pairs with each gRPC status (the specification's one table for HTTP+JSON and
 * gRPC), so that a gRPC failure becomes the same typed error, and is retried the same way, as its
 * HTTP+JSON twin.
 */
const HTTP_STATUS: Readonly<Partial<Record<GrpcStatus, number>>> = {
  [GrpcStatus.INVALID_ARGUMENT]: 400,
  [GrpcStatus.FAILED_PRECONDITION]: 400,
  [GrpcStatus.OUT_OF_RANGE]: 400,
  [GrpcStatus.UNAUTHENTICATED]: 401,
  [GrpcStatus.PERMISSION_DENIED]: 403,
  [GrpcStatus.NOT_FOUND]: 404,
  [GrpcStatus.ALREADY_EXISTS]: 409,
  [GrpcStatus.ABORTED]: 409,
  [GrpcStatus.RESOURCE_EXHAUSTED]: 429,
  [GrpcStatus.UNIMPLEMENTED]: 501,
  [GrpcStatus.INTERNAL]: 500,
  [GrpcStatus.UNKNOWN]: 500,
  [GrpcStatus.DATA_LOSS]: 500,
  [GrpcStatus.UNAVAILABLE]: 503,
  [GrpcStatus.DEADLINE_EXCEEDED]: 504,
};

/** What a failed call stands for: a protocol error (final), or an HTTP-like refusal with its headers. */
export interface GrpcFailure {
  /** The HTTP status of the same failure over HTTP+JSON. */
  httpStatus: number;
  headers: Headers;
  /** The A2A error the status details carry (ErrorInfo of domain a2a-protocol.org), if any. */
  protocolError: JsonRpcErrorObject | undefined;
}

export function failureOf(error: ServiceError): GrpcFailure {
  const httpStatus = HTTP_STATUS[error.code as GrpcStatus] ?? 500;
  const headers = headersOf(error.metadata);
  const details = error.metadata?.get("grpc-status-details-bin")[0];
  const rpcStatus = details instanceof Uint8Array ? decodeGrpcStatus(details) : undefined;
  const statusName = GrpcStatus[error.code] ?? "UNKNOWN";
  // The same google.rpc.Status an HTTP+JSON error body holds, read by the same code.
  const v1 = rpcStatus && fromHttpJsonStatus({ error: { ...rpcStatus, code: httpStatus, status: statusName } });
  const protocolError = v1 && fromV1Error(v1);
  return { httpStatus, headers, protocolError };
}

/**
 * The client's error for a failed call, as over HTTP+JSON: an A2A error of a 400 or 404 as its typed
 * protocol error; any other status as the A2AHttpError of its HTTP twin (401, 429, 503 …); a call that
 * never reached a server (UNAVAILABLE without an answer) as an APIConnectionError.
 */
export function clientErrorOf(error: ServiceError): Error {
  const failure = failureOf(error);
  if (failure.protocolError && (failure.httpStatus === 400 || failure.httpStatus === 404)) {
    return fromJsonRpcError(failure.protocolError);
  }
  if (error.code === GrpcStatus.UNAVAILABLE && !failure.protocolError) {
    return new APIConnectionError(`Connection error: ${error.details || "the gRPC server is unavailable"}`, {
      cause: error,
    });
  }
  return A2AHttpError.from(failure.httpStatus, failure.headers, failure.protocolError);
}

function headersOf(metadata: Metadata | undefined): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(metadata?.getMap() ?? {})) {
    if (typeof value === "string") headers.set(name, value);
  }
  return headers;
}
