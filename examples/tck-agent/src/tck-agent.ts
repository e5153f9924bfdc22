import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type A2AHandler,
  type AgentCardInput,
  agentCardResponder,
  buildAgentCardV1,
  createA2AHandler,
} from "@a2a-partner/a2a-core";
import { type A2AGrpcServer, startA2AGrpcServer } from "@a2a-partner/a2a-core/grpc";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";
import { createPostgresStores, type Database, migrate, openDatabase } from "@a2a-partner/postgres-store";
import { tckExecutor } from "./tck-executor.ts";

export interface TckAgentOptions {
  /** 0 picks a free port. */
  port: number;
  /** The bearer token callers must send; empty: every caller is admitted (the kit 1.0 sends none). */
  token: string;
  /** PGlite's data directory (the embedded store); default in memory. */
  dataDir?: string;
  /** Also serve the gRPC binding on this port (0 picks a free one); the card lists it. */
  grpcPort?: number;
}

export interface TckAgent {
  url: string;
  /** The gRPC binding's `host:port`, when served. */
  grpcAddress?: string;
  handler: A2AHandler;
  close(): Promise<void>;
}

export const A2A_PATH = "/a2a";
/** The one workspace of the agent (the PostgreSQL stores key workspaces by UUID). */
const TCK_WORKSPACE = "00000000-0000-4000-8000-00000000a2a0";
/** Deliveries are signed (Standard Webhooks); the kit does not check signatures. */
const PUSH_SECRET = `whsec_${Buffer.from("tck-agent-push-signing-secret-32b").toString("base64")}`;

/**
 * The conformance agent: the core with every A2A v1.0 method on (SendMessage, multi-turn, the extended
 * card) over JSON-RPC at `/a2a` and HTTP+JSON below it (and gRPC with `grpcPort`), on the embedded
 * store, its card at `/.well-known/agent-card.json`.
 */
export async function startTckAgent(options: TckAgentOptions): Promise<TckAgent> {
  const db: Database = await openDatabase({ dataDir: options.dataDir ?? "memory://" });
  await migrate(db);
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(options.port, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // The handler comes later (it takes the card); the gRPC server needs it, so it starts after.
  let grpc: A2AGrpcServer | undefined;
  const grpcPort = options.grpcPort === undefined ? undefined : await reservePort(options.grpcPort);
  const card: AgentCardInput = {
    name: "A2A partner-task TCK agent",
    description: "A generic A2A agent on @a2a-partner/a2a-core that answers the A2A TCK's scenarios",
    endpointUrl: `${url}${A2A_PATH}`,
    httpJsonUrl: `${url}${A2A_PATH}`,
    version: "1.0.0",
    skills: [
      { id: "tck", name: "TCK Conformance", description: "Handles TCK conformance test messages", tags: ["tck"] },
    ],
    extendedAgentCard: true,
    ...(grpcPort === undefined ? {} : { grpcUrl: `127.0.0.1:${grpcPort}` }),
  };
  const handler = createA2AHandler({
    stores: createPostgresStores(db),
    executor: tckExecutor,
    authenticate: async (headers) =>
      options.token === "" || headers.get("authorization") === `Bearer ${options.token}`
        ? { ok: true, workspaceId: TCK_WORKSPACE }
        : { ok: false, status: 401, message: "Send Authorization: Bearer <A2A_TOKEN>" },
    extendedAgentCard: { ...card, description: `${card.description} (extended)` },
    basePath: A2A_PATH,
    // The kit reuses one messageId per scenario for different messages: ids are not idempotency keys here.
    methods: { deduplicateMessageIds: false },
    // The root entry's push defaults: destinations judged as written, not resolved (the kit names
    // example.com, which may not resolve here), and its webhook receiver on loopback let through.
    push: { signingSecrets: async () => [PUSH_SECRET], allowedHosts: ["localhost", "127.0.0.1"] },
    logger: { info() {}, warn: console.warn, error: console.error },
  });
  if (grpcPort !== undefined) grpc = await startA2AGrpcServer({ handler, port: grpcPort, host: "127.0.0.1" });
  const a2a = toNodeHandler(handler);
  const publicCard = agentCardResponder(buildAgentCardV1({ ...card, pushNotifications: handler.pushNotifications }), {
    lastModified: new Date(),
  });
  server.on("request", (req, res) => {
    if (req.url?.split("?")[0] === "/.well-known/agent-card.json") {
      const answer = publicCard(new Headers(req.headers as Record<string, string>));
      res.writeHead(answer.status, answer.headers).end(answer.body);
      return;
    }
    if (req.url?.startsWith(A2A_PATH)) return void a2a(req, res);
    res.writeHead(404).end();
  });
  return {
    url,
    ...(grpc ? { grpcAddress: `127.0.0.1:${grpc.port}` } : {}),
    handler,
    async close() {
      await closeServer(server);
      const grpcClosed = grpc?.close({ graceMs: 1_000 });
      await handler.close({ graceMs: 0 });
      await grpcClosed;
      await db.close();
    },
  };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** The port to serve gRPC on: the one asked for, or (0) a free one, known before the card is built. */
async function reservePort(port: number): Promise<number> {
  if (port !== 0) return port;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const free = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return free;
}
