import type { A2AClientOptions, GrpcTransportProvider } from "../../options.js";
import type { OpenStream, RpcCall } from "../http/transport.js";

/** The calls a binding's transport makes for the client (the HTTP transport and the gRPC one). */
export interface RpcTransport {
  call(call: RpcCall): Promise<unknown>;
  openStream(call: RpcCall): Promise<OpenStream>;
  close(): Promise<void>;
}

/** How a gRPC transport connects; each call names its address (`host:port`, or any grpc-js target). */
export interface GrpcTarget {
  /** TLS unless the address was learnt from, or given beside, a plain-http URL. */
  secure: boolean;
  options: A2AClientOptions;
}

// A registry symbol: the main entry and the gRPC entry may be loaded as two copies (ESM and CJS).
export const OPEN_GRPC_TRANSPORT = Symbol.for("@a2a-partner/a2a-client/grpc.open");

export interface OpenableGrpcTransportProvider extends GrpcTransportProvider {
  [OPEN_GRPC_TRANSPORT](target: GrpcTarget): RpcTransport;
}

/** Opens the provider's transport; a value that is not one of `grpcTransport()`'s is a TypeError. */
export function openGrpcTransport(provider: GrpcTransportProvider | undefined, target: GrpcTarget): RpcTransport {
  const open = (provider as Partial<OpenableGrpcTransportProvider> | undefined)?.[OPEN_GRPC_TRANSPORT];
  if (typeof open !== "function") {
    throw new TypeError('binding "grpc" needs the grpc option: grpcTransport() from "@a2a-partner/a2a-client/grpc"');
  }
  return open.call(provider, target);
}
