import {
  type CardSigningSettings,
  ConfigError,
  durationSetting,
  type GrpcSettings,
  grpcSettings,
  integerSetting,
  isLoopbackHost,
  logFormatSetting,
  logLevelSetting,
  millisecondsSetting,
  onOffSetting,
  type PushSettings,
  portSetting,
  publicUrlSetting,
  pushSettings,
  redactSecrets,
} from "@a2a-partner/a2a-core/node-runtime";
import { type DatabaseConnections, databaseConnections, postgresUrlSetting } from "@a2a-partner/postgres-store";
import { MIN_RETENTION } from "./retention/min-retention.ts";

export { ConfigError, type GrpcSettings };

export type ServerPushSettings = PushSettings & { dispatchThread: boolean };

/** Everything the reference server reads from its environment, read in one place. */
export interface ServerConfig {
  port: number;
  host: string;
  /** Base URL peers use to reach this server; the agent card's endpoint URL is built from it. */
  publicUrl: string;
  /** Whether PUBLIC_URL was set (else `publicUrl` is the localhost default). */
  publicUrlSet: boolean;
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
  /** Sustained requests per second per token (burst: twice that); over it, HTTP 429. 0 turns it off. */
  rateLimitPerSecond: number;
  /** Open SSE streams one token may hold at once; one more is HTTP 429. 0 turns the cap off. */
  maxStreamsPerToken: number;
  /** Time a client has to send a whole request (headers and body); never applies to a response stream. */
  requestTimeoutMs: number;
  /** Open connections (streams included) the server accepts at once; more are closed at once. 0: no bound. */
  maxConnections: number;
  /** A2A requests being answered at once; one more is HTTP 503 with Retry-After. 0: no bound. */
  maxRequestsInFlight: number;
  /** A2A requests one token may have in flight (its body read included); one more is HTTP 429. 0: no bound. */
  maxRequestsInFlightPerToken: number;
  /** Sustained metrics requests per second per user token (burst: twice that); over it, HTTP 429. 0: off. */
  metricsRateLimitPerSecond: number;
  /** Port of the Prometheus scrape endpoint (`/metrics`); unset: none. 0 picks a free one. */
  metricsPort: number | undefined;
  /** Address of the scrape endpoint: loopback unless set, so it is never public by accident. */
  metricsHost: string;
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
  const port = portSetting(env.PORT, 8080, "PORT");
  return {
    port,
    host: env.HOST || "127.0.0.1",
    publicUrl: publicUrlSetting(env.PUBLIC_URL, port),
    publicUrlSet: Boolean(env.PUBLIC_URL),
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
    rateLimitPerSecond: integerSetting(env.RATE_LIMIT_PER_SECOND, 1000, "RATE_LIMIT_PER_SECOND"),
    maxStreamsPerToken: integerSetting(env.MAX_STREAMS_PER_TOKEN, 1000, "MAX_STREAMS_PER_TOKEN"),
    requestTimeoutMs: millisecondsSetting(env.REQUEST_TIMEOUT_MS, 30_000, "REQUEST_TIMEOUT_MS"),
    maxConnections: integerSetting(env.MAX_CONNECTIONS, 20_000, "MAX_CONNECTIONS"),
    maxRequestsInFlight: integerSetting(env.MAX_REQUESTS_IN_FLIGHT, 2_048, "MAX_REQUESTS_IN_FLIGHT"),
    maxRequestsInFlightPerToken: integerSetting(
      env.MAX_REQUESTS_IN_FLIGHT_PER_TOKEN,
      256,
      "MAX_REQUESTS_IN_FLIGHT_PER_TOKEN",
    ),
    metricsRateLimitPerSecond: integerSetting(env.METRICS_RATE_LIMIT_PER_SECOND, 20, "METRICS_RATE_LIMIT_PER_SECOND"),
    metricsPort: env.METRICS_PORT ? portSetting(env.METRICS_PORT, 0, "METRICS_PORT") : undefined,
    metricsHost: env.METRICS_HOST || "127.0.0.1",
    agentCardSigning: {
      keyFile: env.AGENT_CARD_SIGNING_KEY_FILE || undefined,
      kid: env.AGENT_CARD_SIGNING_KID || undefined,
      alg: env.AGENT_CARD_SIGNING_ALG || undefined,
    },
    push: { ...pushSettings(env), dispatchThread: onOffSetting(env.PUSH_DISPATCH_THREAD, "PUSH_DISPATCH_THREAD") },
    grpc: grpcSettings(env, { host: env.HOST || "127.0.0.1", publicUrl: publicUrlSetting(env.PUBLIC_URL, port) }),
  };
}

/**
 * Refuses to serve on an address other machines can reach while the agent card would advertise
 * `http://localhost:<PORT>`: remote partners would be sent to their own machine (or, with a client that
 * follows the card, refused). Only `serve` checks this; the admin commands never listen.
 */
export function assertServable(config: ServerConfig): void {
  if (config.publicUrlSet || isLoopbackHost(config.host)) return;
  throw new ConfigError(
    `HOST=${config.host} accepts connections from other machines, but PUBLIC_URL is not set, so the agent ` +
      `card would send partners to ${config.publicUrl}. Set PUBLIC_URL to the URL partners use ` +
      `(e.g. https://a2a.example.com), or listen on 127.0.0.1.`,
  );
}

/** A lease is renewed every third of it and the orphan sweep runs every half: below a second is a busy loop. */
const MIN_LEASE_MS = 1_000;
