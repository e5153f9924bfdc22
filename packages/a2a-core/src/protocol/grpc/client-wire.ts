import { type DescMethod, fromBinary, fromJson, type JsonValue, toBinary, toJson } from "@bufbuild/protobuf";
import { A2AService } from "../../../third_party/generated/a2a_pb.js";
import type { MethodName } from "../method-table.js";

/**
 * What a gRPC client of A2A needs of a2a.proto, in the v1.0 JSON shapes the rest of the client speaks
 * (a2a.proto's ProtoJSON): a method's path, its request from params, its answer as JSON (the
 * `google.rpc.Status` a failed call carries: rpc-status-message.ts). protobuf stays inside: no generated
 * type crosses this file.
 */
export interface GrpcMethodWire {
  /** `/lf.a2a.v1.A2AService/<Method>`. */
  readonly path: string;
  /** Whether the answer is a stream of `StreamResponse` messages. */
  readonly streaming: boolean;
  /** The request message of the method's v1.0 params (ProtoJSON); a field a2a.proto lacks is a TypeError. */
  encodeRequest(params: Record<string, unknown>): Uint8Array;
  /** One answer message (a stream's: one `StreamResponse`) as its ProtoJSON (default values left out). */
  decodeAnswer(bytes: Uint8Array): unknown;
}

const METHODS_BY_NAME = new Map<string, DescMethod>(A2AService.methods.map((method) => [method.name, method]));

/** The gRPC wire of a method of the method table, or undefined when a2a.proto has no such rpc. */
export function grpcMethodWire(method: MethodName): GrpcMethodWire | undefined {
  const desc = METHODS_BY_NAME.get(method);
  if (!desc) return undefined;
  return {
    path: `/${A2AService.typeName}/${desc.name}`,
    streaming: desc.methodKind === "server_streaming",
    encodeRequest: (params) => toBinary(desc.input, fromJson(desc.input, params as JsonValue)),
    decodeAnswer: (bytes) => toJson(desc.output, fromBinary(desc.output, bytes)),
  };
}
