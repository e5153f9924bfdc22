import { createRegistry, fromBinary, fromJson, type JsonValue, toBinary, toJson } from "@bufbuild/protobuf";
import { BadRequestSchema, ErrorInfoSchema } from "../../../third_party/generated/google/rpc/error_details_pb.js";
import { StatusSchema } from "../../../third_party/generated/google/rpc/status_pb.js";

/**
 * The `google.rpc.Status` a failed gRPC call carries (`grpc-status-details-bin`), both ways: the server
 * writes it, the client reads it. Its details are the ErrorInfo and BadRequest A2A's errors use.
 */

const DETAILS = createRegistry(ErrorInfoSchema, BadRequestSchema);

/** A `google.rpc.Status` (code, message, its ErrorInfo / BadRequest details as JSON) → its bytes. */
export function statusBytes(code: number, message: string, details: unknown): Uint8Array {
  const json = { code, message, details: Array.isArray(details) ? details : [] } as JsonValue;
  return toBinary(StatusSchema, fromJson(StatusSchema, json, { registry: DETAILS, ignoreUnknownFields: true }));
}

/** A failed call's `grpc-status-details-bin` as the `google.rpc.Status` JSON (`details` with `@type`). */
export function decodeGrpcStatus(bytes: Uint8Array): { code: number; message: string; details: unknown[] } | undefined {
  try {
    const json = toJson(StatusSchema, fromBinary(StatusSchema, bytes), { registry: DETAILS }) as {
      code?: number;
      message?: string;
      details?: unknown[];
    };
    return { code: json.code ?? 0, message: json.message ?? "", details: json.details ?? [] };
  } catch {
    return undefined;
  }
}
