import { ConfigError, portSetting, redactSecrets } from "./settings.js";

/** Where a server's gRPC binding listens, and the address its agent card names (`grpcSettings`). */
export interface GrpcSettings {
  port: number;
  host: string;
  /** GRPC_TLS_KEY_FILE and GRPC_TLS_CERT_FILE (PEM): TLS; neither: HTTP/2 cleartext. */
  tls: { keyFile: string; certFile: string } | undefined;
  /** The `host:port` the agent card lists for gRPC: GRPC_PUBLIC_ADDRESS, else PUBLIC_URL's host and GRPC_PORT. */
  publicAddress: string;
}

/**
 * The gRPC binding's settings: GRPC_PORT (unset: no gRPC binding), GRPC_HOST (default `host`, the HTTP
 * server's), GRPC_TLS_KEY_FILE with GRPC_TLS_CERT_FILE, GRPC_PUBLIC_ADDRESS (default `publicUrl`'s host
 * and GRPC_PORT). A mistake is a ConfigError naming the variable.
 */
export function grpcSettings(
  env: NodeJS.ProcessEnv,
  defaults: { host: string; publicUrl: string },
): GrpcSettings | undefined {
  const keyFile = env.GRPC_TLS_KEY_FILE || undefined;
  const certFile = env.GRPC_TLS_CERT_FILE || undefined;
  const address = env.GRPC_PUBLIC_ADDRESS || undefined;
  const host = env.GRPC_HOST || defaults.host;
  // Every GRPC_* is read first, so a caller that records the variables read (a settings table's test) sees them all.
  if (!env.GRPC_PORT) return undefined;
  const port = portSetting(env.GRPC_PORT, 0, "GRPC_PORT");
  if ((keyFile === undefined) !== (certFile === undefined)) {
    throw new ConfigError("GRPC_TLS_KEY_FILE and GRPC_TLS_CERT_FILE go together: set both for TLS, or neither");
  }
  // The card must name the port clients dial, which GRPC_PORT=0 leaves unknown until it listens.
  if (port === 0 && address === undefined) {
    throw new ConfigError("GRPC_PORT=0 picks a free port the card cannot name: set GRPC_PUBLIC_ADDRESS too, or a port");
  }
  if (address !== undefined && !/^(?:\[[0-9a-fA-F:.]+\]|[\w.-]+):\d{1,5}$/.test(address)) {
    throw new ConfigError(`GRPC_PUBLIC_ADDRESS must be host:port, got "${redactSecrets(address)}"`);
  }
  return {
    port,
    host,
    tls: keyFile && certFile ? { keyFile, certFile } : undefined,
    publicAddress: address ?? `${new URL(defaults.publicUrl).hostname}:${port}`,
  };
}
