import type { A2AStores } from "../ports/a2a-stores.js";
import type { Authenticate } from "../ports/authenticate.js";
import type { Logger } from "../ports/logger.js";
import type { TaskExecutor } from "../ports/task-executor.js";
import { A2A_LIMITS } from "../protocol/limits.js";
import type { AgentCardInput } from "../protocol/schemas/agent-card-input.js";
import type { RateLimiter } from "../runtime/admission/rate-limiter.js";
import type { A2APushOptions } from "./push-options.js";

export interface A2AHandlerOptions {
  stores: A2AStores;
  executor: TaskExecutor;
  authenticate: Authenticate;
  /** The clock, injectable for tests. Defaults to `() => new Date()`. */
  now?: () => Date;
  /** Id generator for task, context and message ids. Defaults to `crypto.randomUUID`. */
  generateId?: () => string;
  /**
   * Where the handler reports what an operator must see: a store that failed, an executor that threw, a
   * task whose end could not be stored. Defaults to warnings and errors on the console (`console.warn`,
   * `console.error`), nothing at info level; pass a pino logger, or `{ info() {}, warn() {}, error() {} }`
   * to silence it.
   */
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
  /** Interval of `: keep-alive` comments on an idle stream, in ms (positive, or a RangeError). Default 15 s. */
  keepAliveMs?: number;
  /**
   * The path the endpoint is mounted at (`/api/v1/a2a`), when the adapters hand it whole URLs (a fetch
   * runtime's `Request`, node:http): the HTTP+JSON routes must be exactly below it, and a request outside
   * it is 404. An adapter's own `basePath` wins. Unset: the path is taken as relative to the mount, as
   * Express's `app.use(path, …)` hands it over.
   */
  basePath?: string;
  /**
   * Largest request body accepted by the adapters, in bytes; larger is HTTP 413. Default
   * `A2A_LIMITS.maxBodyBytes` (256 KiB).
   */
  maxBodyBytes?: number;
  /**
   * Requests per caller (`principal`, else workspace): over it, HTTP 429 with `Retry-After`. A limiter, or
   * the rate of a per-process token bucket. Default: no limit.
   */
  rateLimit?: RateLimiter | { requestsPerSecond: number; burst?: number };
  /** Open streams one caller may hold at once; one more is HTTP 429. Default: no cap. */
  maxOpenStreamsPerCaller?: number;
  /**
   * Bytes a stream's client may leave unread: over it for a third of `keepAliveMs` (checked every
   * second), or over 8× at any moment, and the stream drops the client (it reattaches with
   * Last-Event-ID and loses nothing), so a client that never reads holds bounded memory. Default 1 MiB.
   */
  maxStreamBacklogBytes?: number;
  /**
   * Requests being answered at once (a stream counts until its first frame is out); one more is HTTP 503
   * with Retry-After. Default: no bound.
   */
  maxRequestsInFlight?: number;
  /**
   * Requests one caller (`principal`, else workspace) may have in flight at once, counted from its
   * authentication until its answer is out (a stream: its first frame), its body read included; one
   * more is HTTP 429 with Retry-After. Keeps one caller's slow or stalled bodies from holding every slot
   * of `maxRequestsInFlight`. Default: no bound.
   */
  maxRequestsInFlightPerCaller?: number;
  /**
   * Ended tasks kept in memory for GetTask and reattaches (they never change): those read while they ran
   * or awaited by a blocking SendMessage (kept at their end), and those read from the store since they
   * ended. Default 10,000.
   */
  terminalTaskCacheSize?: number;
  /**
   * The same cache's budget in estimated heap bytes (a task at the request bounds weighs up to ~0.6 MiB
   * once parsed); the least recently used go first, and a task over a sixteenth of it is not kept (it is
   * read from the store). Default 64 MiB; 0 turns the cache off.
   */
  terminalTaskCacheBytes?: number;
  /**
   * Push notifications: on when `stores.push` is given, with these settings; `false` turns them off
   * (the push-config methods answer -32003, the card says `pushNotifications: false`).
   */
  push?: false | A2APushOptions;
  /**
   * The methods an embedder may turn off (each on by default): a method turned off answers -32004
   * (UnsupportedOperation) on every binding and dialect, its params unread.
   */
  methods?: A2AMethodOptions;
  /**
   * The extended agent card, served by GetExtendedAgentCard to authenticated callers (a card, or one per
   * workspace). Without it the method answers -32004. Build the public card with `extendedAgentCard: true`
   * when you give one, so clients know to ask.
   */
  extendedAgentCard?: AgentCardInput | ((workspaceId: string) => AgentCardInput | Promise<AgentCardInput>);
}

export interface A2AMethodOptions {
  /**
   * SendMessage (`message/send`, HTTP+JSON `POST /message:send`): `false` turns it off; otherwise how
   * long a blocking call waits for its task to end or ask for input before it answers the task as it
   * stands (`maxWaitMs`, default 50 s: under the 60 s idle timeout of most proxies).
   */
  sendMessage?: boolean | { maxWaitMs?: number };
  /**
   * Multi-turn: a message with `message.taskId` answers a task that asked for input (its executor gets it
   * from `context.nextMessage()`). `false`: such a message is refused with -32004, whatever the task.
   */
  continueTask?: boolean;
  /**
   * A message's `messageId` is its idempotency key (default): a start retried with the same one gets the
   * same task, a follow-up retried is not appended twice. `false`: every message is new, whatever its
   * id (for clients that reuse ids for different messages, as the conformance kit 1.0 does); a retry is
   * then a second task.
   */
  deduplicateMessageIds?: boolean;
}

export const DEFAULTS = {
  leaseMs: 30_000,
  keepAliveMs: 15_000,
  maxBodyBytes: A2A_LIMITS.maxBodyBytes,
  maxStreamBacklogBytes: 1024 * 1024,
  terminalTaskCacheSize: 10_000,
  terminalTaskCacheBytes: 64 * 1024 * 1024,
} as const;
