import { Server, ServerCredentials } from "@grpc/grpc-js";
import { pipelineOf } from "../../bindings/binding-access.js";
import type { A2AHandler } from "../../ports/handler.js";
import { consoleLogger, type Logger } from "../../ports/logger.js";
import { type A2AGrpcService, a2aGrpcService } from "./a2a-grpc-service.js";

/** Where and how `startA2AGrpcServer` serves the handler. */
export interface A2AGrpcServerOptions {
  /** The handler `createA2AHandler` made: the gRPC binding runs on its pipeline (admission, methods, streams). */
  handler: A2AHandler;
  /** Default 0: a free port (read it from `port`). */
  port?: number;
  /** Default `0.0.0.0`. */
  host?: string;
  /** PEM key and certificate: TLS; without them HTTP/2 cleartext (h2c). */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** Where answers a2a.proto cannot carry are logged (a bug, answered INTERNAL). Default: the console. */
  logger?: Logger;
}

/** A running gRPC server of the A2A service. */
export interface A2AGrpcServer {
  /** The port it listens on. */
  readonly port: number;
  /** The grpc-js server, for more services (health, reflection) of your own. */
  readonly server: Server;
  /**
   * Stops taking calls and waits for the open ones; the handler's `close` ends its streams cleanly (the
   * clients resubscribe elsewhere), so call both. After `graceMs` (default 10 s) the rest are cut.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/** The A2A service of `handler`, for an application that runs its own grpc-js `Server`. */
export function createA2AGrpcService(handler: A2AHandler, logger: Logger = consoleLogger): A2AGrpcService {
  const pipelineFor = pipelineOf(handler);
  if (!pipelineFor) throw new TypeError("handler must be made by createA2AHandler");
  return a2aGrpcService(pipelineFor, logger);
}

/**
 * Serves A2A v1.0's gRPC binding (a2a.proto's `lf.a2a.v1.A2AService`) for `handler` on a port of its own:
 * the same admission, workspaces, limits and streams as its JSON-RPC and HTTP+JSON bindings.
 */
export async function startA2AGrpcServer(options: A2AGrpcServerOptions): Promise<A2AGrpcServer> {
  const { definition, implementation } = createA2AGrpcService(options.handler, options.logger);
  const server = new Server({ "grpc.max_receive_message_length": options.handler.maxBodyBytes });
  server.addService(definition, implementation);
  const credentials = options.tls
    ? ServerCredentials.createSsl(null, [
        { private_key: toBuffer(options.tls.key), cert_chain: toBuffer(options.tls.cert) },
      ])
    : ServerCredentials.createInsecure();
  const address = `${hostPart(options.host ?? "0.0.0.0")}:${options.port ?? 0}`;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(address, credentials, (error, bound) => (error ? reject(error) : resolve(bound))),
  );
  return { port, server, close: (closeOptions) => shutDown(server, closeOptions?.graceMs ?? 10_000) };
}

function shutDown(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    const cut = setTimeout(() => server.forceShutdown(), graceMs);
    cut.unref();
    server.tryShutdown(() => {
      clearTimeout(cut);
      resolve();
    });
  });
}

const toBuffer = (pem: string | Buffer) => (typeof pem === "string" ? Buffer.from(pem) : pem);
const hostPart = (host: string) => (host.includes(":") && !host.startsWith("[") ? `[${host}]` : host);
