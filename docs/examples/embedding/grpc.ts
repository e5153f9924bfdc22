import { authenticate, executor } from "../context.ts";
import { stores } from "../context-handler.ts";

// #region snippet
import { createServer } from "node:http";
import { buildAgentCardV1, createA2AHandler } from "@a2a-partner/a2a-core";
import { startA2AGrpcServer } from "@a2a-partner/a2a-core/grpc";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";

const handler = createA2AHandler({ stores, executor, authenticate });
const http = createServer(toNodeHandler(handler, { basePath: "/api/v1/a2a" })).listen(8080);
// The same handler (auth, workspaces, limits, streams) on a port of its own, HTTP/2 cleartext;
// pass `tls: { key, cert }` (PEM) for TLS.
const grpc = await startA2AGrpcServer({ handler, port: 50051 });

// The card lists the gRPC interface as host:port.
const card = buildAgentCardV1({
  name: "Store robots",
  description: "Restocks shelves",
  version: "1.0.0",
  endpointUrl: "https://robots.example.com/api/v1/a2a",
  httpJsonUrl: "https://robots.example.com/api/v1/a2a",
  grpcUrl: "grpc.robots.example.com:443",
  skills: [],
});

// Shutdown: both stop taking calls, the handler ends every stream cleanly (HTTP and gRPC alike).
async function stop() {
  http.close();
  const grpcClosed = grpc.close({ graceMs: 10_000 });
  await handler.close({ graceMs: 10_000 });
  await grpcClosed;
}
// #endregion snippet

export { card, stop };
