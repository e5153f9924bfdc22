/**
 * gRPC entry (`@a2a-partner/a2a-client/grpc`): A2A v1.0's gRPC binding for `A2AClient`, on grpc-js
 * (`@grpc/grpc-js` and `@bufbuild/protobuf` are optional peer dependencies, loaded only through here).
 *
 * ```ts
 * import { A2AClient } from "@a2a-partner/a2a-client";
 * import { grpcTransport } from "@a2a-partner/a2a-client/grpc";
 * const client = new A2AClient({ baseUrl, token, binding: "grpc", grpc: grpcTransport() });
 * ```
 */
export { type GrpcTransportOptions, grpcTransport } from "./internal/grpc/grpc-transport.js";
export type { GrpcTransportProvider } from "./options.js";
