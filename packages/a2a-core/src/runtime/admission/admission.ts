import type { Authenticate } from "../../ports/authenticate.js";
import type { Caller } from "../../ports/caller.js";
import type { Logger } from "../../ports/logger.js";
import type { Refusal } from "../../ports/refusal.js";
import type { HeaderReader } from "../../protocol/header-reader.js";
import type { HandlerTelemetry, RequestTrace } from "../../telemetry/handler-telemetry.js";
import type { RateLimiter } from "./rate-limiter.js";

export interface AdmissionOptions {
  authenticate: Authenticate;
  rateLimiter: RateLimiter | undefined;
  maxRequestsInFlight: number | undefined;
  now: () => Date;
  logger: Logger;
  telemetry: HandlerTelemetry;
  /** Whether the server is shutting down (then every request is refused). */
  isClosing: () => boolean;
}

/**
 * What every request passes before any binding reads its body: the server is open and not over its
 * in-flight bound, the credential is good, the caller is within its rate. Auth comes before the body,
 * so an anonymous request never costs a body read.
 */
export class Admission {
  #inFlight = 0;

  constructor(private readonly options: AdmissionOptions) {}

  /** Runs `work` counted against the in-flight bound, or answers `refuse(…)` when closing or full. */
  async admit<T>(work: () => Promise<T>, refuse: (refusal: Refusal) => T): Promise<T> {
    const { telemetry, maxRequestsInFlight } = this.options;
    if (this.options.isClosing()) {
      telemetry.refused("shutting_down");
      return refuse(unavailable("The server is shutting down; retry the request"));
    }
    if (maxRequestsInFlight !== undefined && this.#inFlight >= maxRequestsInFlight) {
      telemetry.refused("in_flight_limit");
      return refuse(unavailable("The server is busy; retry the request"));
    }
    this.#inFlight++;
    try {
      return await work();
    } finally {
      this.#inFlight--;
    }
  }

  /** The authenticated caller within its rate, or why not. */
  async identify(headers: HeaderReader, trace: RequestTrace): Promise<Caller | Refusal> {
    const { authenticate, rateLimiter, telemetry, logger } = this.options;
    let auth: Awaited<ReturnType<Authenticate>>;
    try {
      auth = await authenticate(headers);
    } catch (error) {
      // The credential store is unreachable (e.g. a database outage): a retryable condition.
      logger.error({ err: error, ...telemetry.logFields(trace) }, "authentication failed");
      return unavailable("Service temporarily unavailable; retry the request");
    }
    if (!auth.ok) return { kind: "refusal", status: auth.status, message: auth.message };
    const caller: Caller = { workspaceId: auth.workspaceId, key: auth.principal ?? `workspace:${auth.workspaceId}` };
    // Counted before decoding, so a flood of garbage is limited like any other traffic.
    const decision = rateLimiter?.take(caller.key, this.options.now().getTime());
    if (decision && !decision.allowed) {
      telemetry.refused("rate_limit");
      return { kind: "refusal", status: 429, message: "Rate limit exceeded", retryAfterMs: decision.retryAfterMs };
    }
    return caller;
  }
}

function unavailable(message: string): Refusal {
  return { kind: "refusal", status: 503, message };
}
