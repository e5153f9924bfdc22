import {
  type CardSigningSettings,
  cardSigningSettings,
  durationSetting,
  type GrpcSettings,
  grpcSettings,
  type HandlerLimitSettings,
  type HttpSettings,
  handlerLimitSettings,
  httpSettings,
  integerSetting,
  logFormatSetting,
  logLevelSetting,
  millisecondsSetting,
  onOffSetting,
  type PushSettings,
  pushSettings,
  type TelemetrySettings,
  telemetrySettings,
} from "@a2a-partner/a2a-core/node-runtime";
import { type DatabaseConnections, databaseConnections, postgresUrlSetting } from "@a2a-partner/postgres-store";
import { MIN_RETENTION } from "./retention/min-retention.ts";

/** The `service` of every log line and OpenTelemetry's `service.name` (unless OTEL_SERVICE_NAME says otherwise). */
export const SERVICE_NAME = "a2a-reference-server";

export type ServerPushSettings = PushSettings & { dispatchThread: boolean };

/**
 * Everything the reference server reads from its environment, read in one place: the settings any
 * server on the packages reads (a2a-core/node-runtime's httpSettings, handlerLimitSettings,
 * telemetrySettings; PUSH_*, GRPC_*), then this server's own.
 */
export interface ServerConfig extends HttpSettings, HandlerLimitSettings, TelemetrySettings {
  /** PostgreSQL connection string; unset means the embedded PGlite store under `dataDir`. */
  databaseUrl: string | undefined;
  /** DATABASE_LISTEN_URL, DATABASE_READ_URL, DATABASE_POOLER (postgres-store's databaseConnections). */
  databaseConnections: DatabaseConnections;
  dataDir: string;
  logLevel: string;
  /** LOG_FORMAT: `json` or `pretty`; unset, pretty when stderr is a terminal and JSON otherwise. */
  logFormat?: "json" | "pretty" | undefined;
  /** Delay between robot steps in the simulated fleet (ms). */
  robotStepMs: number;
  /** How long a server's hold on a running task lasts without renewal (ms). */
  taskLeaseMs: number;
  /** TASK_RETENTION: ended tasks older than this are pruned in the background (ms); unset: kept forever. */
  taskRetentionMs: number | undefined;
  /** How long a graceful shutdown waits for running tasks before ending them `failed` (ms). */
  shutdownGraceMs: number;
  /** Sustained metrics requests per second per user token (burst: twice that); over it, HTTP 429. 0: off. */
  metricsRateLimitPerSecond: number;
  /** AGENT_CARD_SIGNING_KEY_FILE, _KID, _ALG: sign the agent card (A2A §8.4); unset: unsigned. */
  agentCardSigning: CardSigningSettings;
  /**
   * PUSH_NOTIFICATIONS, PUSH_ALLOWED_HOSTS, PUSH_HORIZON, PUSH_MAX_RETRY_WAIT (node-runtime's pushSettings)
   * and PUSH_DISPATCH_THREAD (`on`, the default, or `off`): on PostgreSQL, deliveries go out from a worker
   * thread of their own (app/push-dispatch.ts); PGlite always delivers from the server's thread.
   */
  push: ServerPushSettings;
  /** GRPC_*: the gRPC binding on a port of its own (a2a-core/node-runtime's grpcSettings); unset GRPC_PORT: none. */
  grpc: GrpcSettings | undefined;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const http = httpSettings(env);
  return {
    ...http,
    databaseUrl: postgresUrlSetting(env.DATABASE_URL, "DATABASE_URL"),
    databaseConnections: databaseConnections(env),
    dataDir: env.DATA_DIR || "./.data/pglite",
    logLevel: logLevelSetting(env.LOG_LEVEL),
    logFormat: logFormatSetting(env.LOG_FORMAT),
    robotStepMs: millisecondsSetting(env.ROBOT_STEP_MS, 400, "ROBOT_STEP_MS"),
    taskLeaseMs: millisecondsSetting(env.TASK_LEASE_MS, 30_000, "TASK_LEASE_MS", MIN_LEASE_MS),
    taskRetentionMs: durationSetting(env.TASK_RETENTION, {
      name: "TASK_RETENTION",
      min: MIN_RETENTION,
      example: "30d",
      unset: "unset keeps tasks forever",
    }),
    shutdownGraceMs: millisecondsSetting(env.SHUTDOWN_GRACE_MS, 10_000, "SHUTDOWN_GRACE_MS"),
    ...handlerLimitSettings(env),
    metricsRateLimitPerSecond: integerSetting(env.METRICS_RATE_LIMIT_PER_SECOND, 20, "METRICS_RATE_LIMIT_PER_SECOND"),
    ...telemetrySettings(env),
    agentCardSigning: cardSigningSettings(env),
    push: { ...pushSettings(env), dispatchThread: onOffSetting(env.PUSH_DISPATCH_THREAD, "PUSH_DISPATCH_THREAD") },
    grpc: grpcSettings(env, http),
  };
}

/** A lease is renewed every third of it and the orphan sweep runs every half: below a second is a busy loop. */
const MIN_LEASE_MS = 1_000;
