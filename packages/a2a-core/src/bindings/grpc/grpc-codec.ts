import type { DescMessage } from "@bufbuild/protobuf";
import type { A2AHandlerResponse } from "../../ports/handler-response.js";
import type { Refusal } from "../../ports/refusal.js";
import { A2A_VERSION_HEADER } from "../../protocol/dialect/protocol-version.js";
import { DIALECT_V1 } from "../../protocol/dialect/v1-dialect.js";
import { InternalError, InvalidRequestError } from "../../protocol/errors.js";
import type { MethodName } from "../../protocol/method-table.js";
import { BARE_FRAMES } from "../../runtime/hub/live-event.js";
import type { BindingCodec } from "../pipeline.js";
import { RPC_CODES, rpcStatusOf } from "../rpc-status.js";
import { refuseUnlessV1 } from "../v1-only.js";
import { paramsOfMessage } from "./proto-json.js";

/** One gRPC call as the codec knows it before it runs: the method, its request message's schema and bytes. */
export interface GrpcCall {
  method: MethodName;
  input: DescMessage;
  bytes: Uint8Array;
}

/**
 * An error answer of the gRPC binding: `body.error` is the `google.rpc.Status` (its `code` the gRPC
 * status code) that the server sends as the call's status and `grpc-status-details-bin`.
 */
export interface GrpcErrorBody {
  readonly [key: string]: unknown;
  error: { code: number; status: string; message: string; details: unknown };
}

/**
 * A2A v1.0's gRPC binding as a codec over the shared pipeline: the request message's ProtoJSON is the
 * v1.0 params (read after admission, like a body), a value is the response message's JSON, an error a
 * gRPC status with the same `ErrorInfo` details as HTTP+JSON, and a stream's frames are bare
 * `StreamResponse`s. No method is named here.
 */
export const GRPC_CODEC: BindingCodec<GrpcCall> = {
  readsBody: () => false,
  decode(call, _body, request) {
    const refuse = refuseUnlessV1(request.headers.get(A2A_VERSION_HEADER));
    return {
      call: {
        method: call.method,
        wireMethod: call.method,
        params: () => paramsOfMessage(call.input, call.bytes),
        dialect: DIALECT_V1,
      },
      requestId: "",
      ...(refuse ? { refuse } : {}),
    };
  },
  value: (_call, value) => ({ kind: "json", status: 200, headers: {}, body: value as Record<string, unknown> }),
  error: (_call, error) => grpcError(error),
  unavailable: () =>
    grpcError(new InternalError("Service temporarily unavailable; retry the request"), 503, { "retry-after": "1" }),
  refusal: grpcRefusal,
  bodyRefusal: () => grpcError(new InvalidRequestError("The request message could not be read")),
  frames: () => ({ requestIdJson: BARE_FRAMES, render: DIALECT_V1.stream }),
};

/** A refusal as a gRPC status: UNAUTHENTICATED, PERMISSION_DENIED, RESOURCE_EXHAUSTED or UNAVAILABLE. */
function grpcRefusal(refusal: Refusal): A2AHandlerResponse {
  const error =
    refusal.status === 503
      ? new InternalError(refusal.message)
      : new InvalidRequestError(
          refusal.message,
          refusal.status === 429 ? { retryAfterMs: refusal.retryAfterMs ?? 1000 } : undefined,
        );
  const retryAfter = refusal.status === 429 ? Math.max(1, Math.ceil((refusal.retryAfterMs ?? 1000) / 1000)) : 1;
  const headers: Record<string, string> =
    refusal.status === 429 || refusal.status === 503 ? { "retry-after": String(retryAfter) } : {};
  return grpcError(error, refusal.status, headers);
}

/** `error` as the call's status: the A2A v1.0 table (rpc-status.ts), details as HTTP+JSON sends them. */
function grpcError(error: unknown, httpStatus?: number, headers: Record<string, string> = {}): A2AHandlerResponse {
  const status = rpcStatusOf(error, httpStatus);
  const body: GrpcErrorBody = {
    error: { code: RPC_CODES[status.status], status: status.status, message: status.message, details: status.details },
  };
  return { kind: "json", status: status.httpStatus, headers, body, errorCode: status.errorCode };
}
