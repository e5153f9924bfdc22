/**
 * The comparison server for `pnpm bench:a2a`: the smallest faithful A2A server built on the official
 * `@a2a-js/sdk` (v1.x, from npm) — `DefaultRequestHandler` + an `AgentExecutor` + the SDK's Express
 * JSON-RPC handler, as in the SDK's own samples. Its executor mirrors the simulated robot fleet's
 * timeline for "Restock …" (5 steps): a `working` Task, one status update per step after STEP_MS, an
 * artifact, then the final `completed` status. It does not write the fleet's metrics records.
 *
 * Env: PORT (0 = ephemeral), STEP_MS (delay per step, like ROBOT_STEP_MS), STEPS (default 5),
 * STORE = memory (the SDK's default InMemoryTaskStore) | postgres (the SDK's DatabaseTaskStore on
 * Kysely + pg, against DATABASE_URL, migrated beforehand with the SDK's `a2a-db upgrade`), GRPC_PORT (when
 * set, the same request handler also served over gRPC with the SDK's `grpcService` from
 * `@a2a-js/sdk/server/grpc` on 127.0.0.1:GRPC_PORT, as its README shows).
 * Logs one JSON line `{"msg":"bench server listening","url":…}` on stderr once it listens (on both ports).
 */
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { LISTENING_MESSAGE } from "./announce-listening.ts";
import { sleepUnlessAborted } from "./sleep-unless-aborted.ts";

// bench/ is not a workspace package: the SDK and Express resolve from the reference server, whose
// devDependency the SDK is. (Its CommonJS build: the same source as the ESM one.)
const require = createRequire(new URL("../../examples/server/package.json", import.meta.url));
const sdk = require("@a2a-js/sdk") as typeof import("@a2a-js/sdk");
const server = require("@a2a-js/sdk/server") as typeof import("@a2a-js/sdk/server");
const sdkExpress = require("@a2a-js/sdk/server/express") as typeof import("@a2a-js/sdk/server/express");
const express = require("express") as typeof import("express");

type AgentExecutor = import("@a2a-js/sdk/server").AgentExecutor;
type ExecutionEventBus = import("@a2a-js/sdk/server").ExecutionEventBus;
type RequestContext = import("@a2a-js/sdk/server").RequestContext;
type TaskStore = import("@a2a-js/sdk/server").TaskStore;
type AgentCard = import("@a2a-js/sdk").AgentCard;

const { AgentEvent } = server;
const { TaskState, Role } = sdk;

const port = Number(process.env.PORT ?? 0);
const stepMs = Number(process.env.STEP_MS ?? 400);
const steps = Number(process.env.STEPS ?? 5);
const storeKind = process.env.STORE ?? "memory";
const grpcPort = process.env.GRPC_PORT ? Number(process.env.GRPC_PORT) : undefined;

function log(entry: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify(entry)}\n`);
}

function textPart(text: string) {
  return {
    content: { $case: "text" as const, value: text },
    metadata: undefined,
    filename: "",
    mediaType: "text/plain",
  };
}

/** The fleet's timeline without its database writes: working task, a status per step, artifact, completed. */
class RobotFleetTimeline implements AgentExecutor {
  private readonly running = new Map<string, AbortController>();

  async execute(context: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = context;
    const message = context.userMessage;
    const controller = new AbortController();
    this.running.set(taskId, controller);
    const now = () => new Date().toISOString();
    try {
      bus.publish(
        AgentEvent.task({
          id: taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_WORKING, timestamp: now(), message: undefined },
          artifacts: [],
          history: [message],
          metadata: message.metadata,
        }),
      );
      for (let step = 1; step <= steps; step++) {
        await sleepUnlessAborted(stepMs, controller.signal);
        if (controller.signal.aborted) return;
        bus.publish(
          AgentEvent.statusUpdate({
            taskId,
            contextId,
            status: {
              state: TaskState.TASK_STATE_WORKING,
              timestamp: now(),
              message: {
                role: Role.ROLE_AGENT,
                messageId: randomUUID(),
                parts: [textPart(`robot-${((step - 1) % 3) + 1}: step ${step} of ${steps}`)],
                taskId,
                contextId,
                extensions: [],
                metadata: {},
                referenceTaskIds: [],
              },
            },
            metadata: { step, steps, percent: Math.round((step / steps) * 100) },
          }),
        );
      }
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId,
          contextId,
          artifact: {
            artifactId: "report",
            name: "Task report",
            description: "",
            parts: [textPart(`restock-shelf: ${steps} steps`)],
            metadata: undefined,
            extensions: [],
          },
          lastChunk: true,
          append: false,
          metadata: undefined,
        }),
      );
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId,
          status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: now(), message: undefined },
          metadata: {},
        }),
      );
    } finally {
      this.running.delete(taskId);
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    this.running.get(taskId)?.abort();
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: "",
        status: { state: TaskState.TASK_STATE_CANCELED, timestamp: new Date().toISOString(), message: undefined },
        metadata: {},
      }),
    );
  }
}

async function taskStore(): Promise<{ store: TaskStore; close(): Promise<void> }> {
  if (storeKind === "memory") return { store: new server.InMemoryTaskStore(), close: async () => {} };
  if (storeKind !== "postgres") throw new Error(`STORE must be memory or postgres, got ${storeKind}`);
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error("STORE=postgres needs DATABASE_URL");
  const database = require("@a2a-js/sdk/server/database") as typeof import("@a2a-js/sdk/server/database");
  const { Kysely, PostgresDialect } = await import("kysely");
  const pg = require("pg") as typeof import("pg");
  // The same pool size as the reference server's (server.ts: max 20).
  const db = new Kysely({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 20 }) }) });
  return { store: new database.DatabaseTaskStore(db as never), close: () => db.destroy() };
}

async function main(): Promise<void> {
  const { store, close } = await taskStore();
  const path = "/api/v1/a2a";
  const card: AgentCard = {
    name: "Robot fleet (official SDK)",
    description: "Benchmark twin of the reference server, built on @a2a-js/sdk",
    supportedInterfaces: [
      {
        url: `http://localhost:${port}${path}`,
        protocolBinding: "JSONRPC",
        tenant: "",
        protocolVersion: sdk.A2A_PROTOCOL_VERSION,
      },
      // The SDK's gRPC service accepts the versions the card lists for GRPC only.
      ...(grpcPort === undefined
        ? []
        : [
            {
              url: `127.0.0.1:${grpcPort}`,
              protocolBinding: "GRPC",
              tenant: "",
              protocolVersion: sdk.A2A_PROTOCOL_VERSION,
            },
          ]),
    ],
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text"],
    defaultOutputModes: ["text", "task-status"],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
  const requestHandler = new server.DefaultRequestHandler(card, store, new RobotFleetTimeline());
  const app = express();
  app.use(`/${sdk.AGENT_CARD_PATH}`, sdkExpress.agentCardHandler({ agentCardProvider: requestHandler }));
  app.use(path, sdkExpress.jsonRpcHandler({ requestHandler, userBuilder: sdkExpress.UserBuilder.noAuthentication }));
  const grpcServer = grpcPort === undefined ? undefined : await serveGrpc(requestHandler, grpcPort);
  const http = app.listen(port, "127.0.0.1", () => {
    const address = http.address();
    const listening = typeof address === "object" && address ? address.port : port;
    log({ msg: LISTENING_MESSAGE, url: `http://127.0.0.1:${listening}`, store: storeKind, stepMs, grpcPort });
  });
  const stop = () => {
    grpcServer?.forceShutdown();
    http.closeAllConnections();
    http.close(() => {
      close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

/** The SDK's gRPC service over the same request handler, as `@a2a-js/sdk/server/grpc`'s README starts it. */
async function serveGrpc(
  requestHandler: import("@a2a-js/sdk/server").A2ARequestHandler,
  at: number,
): Promise<import("@grpc/grpc-js").Server> {
  const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");
  const sdkGrpc = require("@a2a-js/sdk/server/grpc") as typeof import("@a2a-js/sdk/server/grpc");
  const grpcServer = new grpc.Server();
  grpcServer.addService(
    sdkGrpc.A2AService,
    sdkGrpc.grpcService({ requestHandler, userBuilder: sdkGrpc.UserBuilder.noAuthentication }),
  );
  await new Promise<void>((resolve, reject) =>
    grpcServer.bindAsync(`127.0.0.1:${at}`, grpc.ServerCredentials.createInsecure(), (error) =>
      error ? reject(error) : resolve(),
    ),
  );
  return grpcServer;
}

main().catch((error: unknown) => {
  log({ msg: "sdk server failed", error: error instanceof Error ? error.message : String(error) });
  process.exit(1);
});
