import { readFileSync } from "node:fs";
import type { GrpcSettings } from "../../node-runtime/grpc-settings.js";
import type { A2AHandler } from "../../ports/handler.js";
import type { Logger } from "../../ports/logger.js";
import { type A2AGrpcServer, startA2AGrpcServer } from "./grpc-server.js";

/**
 * `startA2AGrpcServer` as `settings` (a2a-core/node-runtime's `grpcSettings`) say (the TLS files read now: a missing one stops the start), its
 * lines logged by `logger.child({ component: "grpc" })` and where it listens logged once.
 */
export async function startGrpcServerWith(
  handler: A2AHandler,
  settings: GrpcSettings,
  logger: Logger & { child(bindings: Record<string, unknown>): Logger },
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
