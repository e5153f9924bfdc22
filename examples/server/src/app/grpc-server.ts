import { readFileSync } from "node:fs";
import type { A2AHandler } from "@a2a-partner/a2a-core";
import { type A2AGrpcServer, startA2AGrpcServer } from "@a2a-partner/a2a-core/grpc";
import type { GrpcSettings } from "../config.ts";
import type { Logger } from "../logger.ts";

/**
 * The gRPC binding of the server's handler on GRPC_PORT (same auth, workspaces, limits and streams as the
 * HTTP endpoint); TLS when GRPC_TLS_KEY_FILE and GRPC_TLS_CERT_FILE are set.
 */
export async function startGrpcServer(
  handler: A2AHandler,
  settings: GrpcSettings,
  logger: Logger,
): Promise<A2AGrpcServer> {
  const tls = settings.tls
    ? { key: readFileSync(settings.tls.keyFile), cert: readFileSync(settings.tls.certFile) }
    : undefined;
  const server = await startA2AGrpcServer({
    handler,
    port: settings.port,
    host: settings.host,
    ...(tls ? { tls } : {}),
    logger: logger.child({ component: "grpc" }),
  });
  logger.info(
    { address: `${settings.host}:${server.port}`, tls: tls !== undefined, card: settings.publicAddress },
    "gRPC binding listening",
  );
  return server;
}
