import type { TaskExecutor } from "../executor/task-executor.js";
import type { EventLog } from "../stores/event-log.js";
import type { IdempotencyStore } from "../stores/idempotency-store.js";
import type { TaskStore } from "../stores/task-store.js";
import type { RateLimiter } from "./rate-limiter.js";

/** Who is calling. A partner token resolves to the one workspace it is scoped to. */
export type AuthOutcome =
  | {
      ok: true;
      workspaceId: string;
      /** Identifies the credential (e.g. the token's id): the key of rate limits and stream caps, and logged. */
      principal?: string;
    }
  | {
      ok: false;
      /** 401: missing or invalid credential; 403: valid but not allowed here (e.g. a user session token). */
      status: 401 | 403;
      message: string;
    };

export type Authenticate = (headers: Headers) => Promise<AuthOutcome>;

/** The subset of a pino logger the handler uses; pass a pino instance or anything shaped like it. */
export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface A2AStores {
  tasks: TaskStore;
  events: EventLog;
  idempotency: IdempotencyStore;
}

export interface A2AHandlerOptions {
  stores: A2AStores;
  executor: TaskExecutor;
  authenticate: Authenticate;
  /** The clock, injectable for tests. Defaults to `() => new Date()`. */
  now?: () => Date;
  /** Id generator for task, context and message ids. Defaults to `crypto.randomUUID`. */
  generateId?: () => string;
  logger?: Logger;
  /** Names this process as the holder of the tasks it runs. Defaults to a random id. */
  instanceId?: string;
  /**
   * How long a runner's hold on a task lasts without renewal. A task whose lease runs out (its process
   * died) is ended `failed` by the recovery sweep of any instance. Default 30 s; renewed every third of it.
   */
  leaseMs?: number;
  /** How often to look for orphaned tasks. Default: `leaseMs / 2`. 0 disables the periodic sweep. */
  recoveryIntervalMs?: number;
  /** Interval of `: keep-alive` comments on an idle stream. Default 15 s. */
  keepAliveMs?: number;
  /** Largest request body accepted by the adapters, in bytes; larger is HTTP 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Requests per caller (`principal`, else workspace): over it, HTTP 429 with `Retry-After`. A limiter, or
   * the rate of a per-process token bucket. Default: no limit.
   */
  rateLimit?: RateLimiter | { requestsPerSecond: number; burst?: number };
  /** Open streams one caller may hold at once; one more is HTTP 429. Default: no cap. */
  maxOpenStreamsPerCaller?: number;
}

export const DEFAULTS = {
  leaseMs: 30_000,
  keepAliveMs: 15_000,
  maxBodyBytes: 1024 * 1024,
} as const;

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
