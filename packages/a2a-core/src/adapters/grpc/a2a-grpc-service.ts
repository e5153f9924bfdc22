import type { DescMethod } from "@bufbuild/protobuf";
import {
  type handleServerStreamingCall,
  type handleUnaryCall,
  Metadata,
  type ServerErrorResponse,
  type ServiceDefinition,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import { A2AService } from "../../../third_party/generated/a2a_pb.js";
import type { PipelineFor } from "../../bindings/binding-access.js";
import { GRPC_CODEC, type GrpcCall, type GrpcErrorBody } from "../../bindings/grpc/grpc-codec.js";
import { messageOfJson } from "../../bindings/grpc/proto-json.js";
import type { A2AHandlerRequest } from "../../ports/handler.js";
import type { A2AHandlerResponse } from "../../ports/handler-response.js";
import type { Logger } from "../../ports/logger.js";
import { statusBytes } from "../../protocol/grpc/rpc-status-message.js";
import { METHODS, type MethodName } from "../../protocol/method-table.js";
import { metadataHeaders } from "./metadata-headers.js";
import { GrpcStreamSink } from "./stream-sink.js";

/** A2A's gRPC service for grpc-js's `Server.addService`: its definition and the handler's implementation. */
export interface A2AGrpcService {
  /** `lf.a2a.v1.A2AService`, its messages passed as bytes (the binding decodes them after admission). */
  definition: ServiceDefinition;
  /** One handler per method of the method table, over the shared pipeline. */
  implementation: UntypedServiceImplementation;
}

// Messages cross grpc-js as bytes: the codec decodes them after admission, so a malformed one is an
// INVALID_ARGUMENT answer of the pipeline, never a deserialisation failure of grpc-js.
const asBuffer = (bytes: Uint8Array | Buffer) =>
  Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const same = (bytes: Buffer) => bytes;

/** The service a2a.proto defines, each method answered by the shared pipeline with the gRPC codec. */
export function a2aGrpcService(pipelineFor: PipelineFor, logger: Logger): A2AGrpcService {
  const pipeline = pipelineFor(GRPC_CODEC);
  const definition: Record<string, ServiceDefinition[string]> = {};
  const implementation: UntypedServiceImplementation = {};
  for (const desc of A2AService.methods) {
    if (!(desc.name in METHODS)) continue;
    const method = desc.name as MethodName;
    const streaming = desc.methodKind === "server_streaming";
    definition[desc.name] = {
      path: `/${A2AService.typeName}/${desc.name}`,
      requestStream: false,
      responseStream: streaming,
      requestSerialize: asBuffer,
      requestDeserialize: same,
      responseSerialize: asBuffer,
      responseDeserialize: same,
      originalName: desc.name,
    };
    const answer = (metadata: Metadata, bytes: Buffer) =>
      pipeline(requestOf(metadata), { method, input: desc.input, bytes } satisfies GrpcCall);
    implementation[desc.name] = streaming ? streamingCall(answer, desc) : unaryCall(answer, desc, logger);
  }
  return { definition, implementation };
}

type Answer = (metadata: Metadata, bytes: Buffer) => Promise<A2AHandlerResponse>;

function requestOf(metadata: Metadata): A2AHandlerRequest {
  return { headers: metadataHeaders(metadata), body: "" };
}

function unaryCall(answer: Answer, desc: DescMethod, logger: Logger): handleUnaryCall<Buffer, Buffer> {
  return (call, callback) => {
    answer(call.metadata, call.request).then((response) => {
      if (response.kind !== "json") return callback(statusError(unexpected(response)));
      if (isErrorBody(response.body)) return callback(statusError(response.body, response.headers));
      try {
        callback(null, asBuffer(messageOfJson(desc.output, response.body)));
      } catch (error) {
        // An answer a2a.proto cannot carry is a bug of ours, never the caller's: INTERNAL, logged.
        logger.error({ err: error, method: desc.name }, "gRPC answer could not be encoded");
        callback(statusError({ error: { code: 13, status: "INTERNAL", message: "Internal error", details: [] } }));
      }
    }, callback);
  };
}

function streamingCall(answer: Answer, desc: DescMethod): handleServerStreamingCall<Buffer, Buffer> {
  return (call) => {
    answer(call.metadata, call.request).then(
      (response) => {
        if (response.kind === "json") {
          const body = isErrorBody(response.body) ? response.body : unexpected(response);
          if (!call.cancelled) call.emit("error", statusError(body, response.headers));
          return;
        }
        // The client going away (cancel, deadline) detaches the stream; the task goes on.
        const stop = response.start(new GrpcStreamSink(call, desc.output));
        if (call.cancelled) stop();
        else call.once("cancelled", stop);
      },
      (error: unknown) => call.emit("error", error),
    );
  };
}

function isErrorBody(body: unknown): body is GrpcErrorBody {
  return typeof body === "object" && body !== null && "error" in body;
}

/** A method answered in the other shape (a value for a stream, or the reverse): never by the table. */
function unexpected(response: A2AHandlerResponse): GrpcErrorBody {
  if (response.kind === "sse") response.start({ write() {}, backlog: 0, end() {}, abort() {} })();
  return { error: { code: 13, status: "INTERNAL", message: "Internal error", details: [] } };
}

/** The call's status: code, message, the `google.rpc.Status` as `grpc-status-details-bin`, and `retry-after`. */
function statusError(body: GrpcErrorBody, headers: Record<string, string> = {}): Partial<ServerErrorResponse> {
  const { code, message, details } = body.error;
  const metadata = new Metadata();
  metadata.set("grpc-status-details-bin", asBuffer(statusBytes(code, message, details)));
  for (const [name, value] of Object.entries(headers)) metadata.set(name, value);
  return { code, details: message, metadata };
}
