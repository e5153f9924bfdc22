/** Everything the reference server reads from its environment, read in one place. */
export interface ServerConfig {
  port: number;
  host: string;
  /** Base URL peers use to reach this server; the agent card's endpoint URL is built from it. */
  publicUrl: string;
  /** PostgreSQL connection string; unset means the embedded PGlite store under `dataDir`. */
  databaseUrl: string | undefined;
  dataDir: string;
  logLevel: string;
  /** Delay between robot steps in the simulated fleet (ms). */
  robotStepMs: number;
  /** How long a server's hold on a running task lasts without renewal (ms). */
  taskLeaseMs: number;
  /** How long a graceful shutdown waits for running tasks before ending them `failed` (ms). */
  shutdownGraceMs: number;
  /** Sustained requests per second per token (burst: twice that); over it, HTTP 429. 0 turns it off. */
  rateLimitPerSecond: number;
  /** Open SSE streams one token may hold at once; one more is HTTP 429. 0 turns the cap off. */
  maxStreamsPerToken: number;
  /** Time a client has to send a whole request (headers and body); never applies to a response stream. */
  requestTimeoutMs: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = integer(env.PORT, 8080, "PORT");
  return {
    port,
    host: env.HOST || "127.0.0.1",
    // localhost, not 127.0.0.1: conformance tools compare the card's URL with the one they were given.
    publicUrl: (env.PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ""),
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: env.DATA_DIR || "./.data/pglite",
    logLevel: env.LOG_LEVEL || "info",
    robotStepMs: integer(env.ROBOT_STEP_MS, 400, "ROBOT_STEP_MS"),
    taskLeaseMs: integer(env.TASK_LEASE_MS, 30_000, "TASK_LEASE_MS"),
    shutdownGraceMs: integer(env.SHUTDOWN_GRACE_MS, 10_000, "SHUTDOWN_GRACE_MS"),
    rateLimitPerSecond: integer(env.RATE_LIMIT_PER_SECOND, 1000, "RATE_LIMIT_PER_SECOND"),
    maxStreamsPerToken: integer(env.MAX_STREAMS_PER_TOKEN, 1000, "MAX_STREAMS_PER_TOKEN"),
    requestTimeoutMs: integer(env.REQUEST_TIMEOUT_MS, 30_000, "REQUEST_TIMEOUT_MS"),
  };
}

function integer(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined || value === "") return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 0)
    throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return parsed;
}
