// A gRPC proxy for `pnpm conformance` (conformance-reference.ts): the kit 1.0 sends no credential, and the
// reference server refuses a call without one, so every call of A2AService is passed on as it came, bytes
// unparsed, with the seeded partner token in its `authorization` metadata, and its answer, stream, status
// and trailers (google.rpc.Status details included) passed back the same way. A cancelled call cancels the
// upstream one.
import { createRequire } from "node:module";

// scripts/ is no workspace package: grpc-js and the protocol entries resolve from the client package.
const require = createRequire(new URL("../packages/a2a-client/package.json", import.meta.url));
const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
const { METHODS } = require("@a2a-partner/a2a-core/protocol") as typeof import("@a2a-partner/a2a-core/protocol");
const { grpcMethodWire } = require("@a2a-partner/a2a-core/grpc") as typeof import("@a2a-partner/a2a-core/grpc");

type Metadata = import("@grpc/grpc-js").Metadata;
type ServiceError = import("@grpc/grpc-js").ServiceError;

const same = (bytes: Buffer) => bytes;

export interface GrpcProxy {
  /** `127.0.0.1:<port>`, what the card names. */
  address: string;
  stop(): Promise<void>;
}

export async function startGrpcProxy(upstream: string, token: string): Promise<GrpcProxy> {
  const client = new grpc.Client(upstream, grpc.credentials.createInsecure());
  const server = new grpc.Server();
  const withToken = (metadata: Metadata) => {
    const copy = metadata.clone();
    if (copy.get("authorization").length === 0) copy.set("authorization", `Bearer ${token}`);
    return copy;
  };
  const definitions: Record<string, import("@grpc/grpc-js").MethodDefinition<Buffer, Buffer>> = {};
  const handlers: Record<string, import("@grpc/grpc-js").UntypedHandleCall> = {};
  for (const name of Object.keys(METHODS) as (keyof typeof METHODS)[]) {
    const wire = grpcMethodWire(name);
    if (!wire) continue;
    definitions[name] = {
      path: wire.path,
      requestStream: false,
      responseStream: wire.streaming,
      requestSerialize: same,
      requestDeserialize: same,
      responseSerialize: same,
      responseDeserialize: same,
    };
    handlers[name] = wire.streaming
      ? (call: import("@grpc/grpc-js").ServerWritableStream<Buffer, Buffer>) => {
          const answer = client.makeServerStreamRequest(wire.path, same, same, call.request, withToken(call.metadata));
          answer.on("metadata", (headers) => call.sendMetadata(headers));
          answer.on("data", (bytes: Buffer) => call.write(bytes));
          answer.on("status", (status) => {
            if (status.code === grpc.status.OK) call.end(status.metadata);
          });
          answer.on("error", (error: ServiceError) => call.emit("error", error));
          call.on("cancelled", () => answer.cancel());
        }
      : (
          call: import("@grpc/grpc-js").ServerUnaryCall<Buffer, Buffer>,
          callback: import("@grpc/grpc-js").sendUnaryData<Buffer>,
        ) => {
          const answer = client.makeUnaryRequest(
            wire.path,
            same,
            same,
            call.request,
            withToken(call.metadata),
            (error, bytes) => (error ? callback(error) : callback(null, bytes)),
          );
          answer.on("metadata", (headers) => call.sendMetadata(headers));
          call.on("cancelled", () => answer.cancel());
        };
  }
  server.addService(definitions, handlers);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return {
    address: `127.0.0.1:${port}`,
    async stop() {
      server.forceShutdown();
      client.close();
    },
  };
}
