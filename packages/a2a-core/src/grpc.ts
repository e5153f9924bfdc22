/**
 * gRPC entry (`@a2a-partner/a2a-core/grpc`): A2A v1.0's gRPC binding over a handler from
 * `createA2AHandler`, on grpc-js and protobuf-es (optional peer dependencies, loaded only through here).
 */

export type { A2AGrpcService } from "./adapters/grpc/a2a-grpc-service.js";
export {
  type A2AGrpcServer,
  type A2AGrpcServerOptions,
  createA2AGrpcService,
  startA2AGrpcServer,
} from "./adapters/grpc/grpc-server.js";
export { startGrpcServerWith } from "./adapters/grpc/grpc-start.js";
export { EVENT_SEQ_KEY } from "./bindings/grpc/stream-frames.js";
// The settings `startGrpcServerWith` takes (read by node-runtime's `grpcSettings`), for a reader of this entry alone.
export type { GrpcSettings } from "./node-runtime/grpc-settings.js";
export { type GrpcMethodWire, grpcMethodWire } from "./protocol/grpc/client-wire.js";
export { decodeGrpcStatus } from "./protocol/grpc/rpc-status-message.js";
