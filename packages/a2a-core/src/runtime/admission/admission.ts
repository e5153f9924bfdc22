import type { Authenticate } from "../../ports/authenticate.js";
import type { Caller } from "../../ports/caller.js";
import type { Logger } from "../../ports/logger.js";
import type { Refusal } from "../../ports/refusal.js";
import { InternalError } from "../../protocol/errors.js";
import type { HeaderReader } from "../../protocol/header-reader.js";
import type { HandlerTelemetry, RequestTrace } from "../../telemetry/handler-telemetry.js";
import { PerCallerSlots } from "../per-caller-slots.js";
import type { RateLimiter } from "./rate-limiter.js";

export interface AdmissionOptions {
  authenticate: Authenticate;
  /** The stores' check of the workspace ids `authenticate` returns (A2AStores.checkWorkspaceId). */
  checkWorkspaceId: ((workspaceId: string) => string | undefined) | undefined;
  rateLimiter: RateLimiter | undefined;
  maxRequestsInFlight: number | undefined;
  /** Requests one caller may have in flight; one more is HTTP 429. Undefined: no per-caller bound. */
  maxRequestsInFlightPerCaller: number | undefined;
  now: () => Date;
  logger: Logger;
  telemetry: HandlerTelemetry;
  /** Whether the server is shutting down (then every request is refused). */
  isClosing: () => boolean;
}

/**
 * One admitted request: what its caller holds while it is answered (given back when `admit`'s work ends).
 * A binding passes it to `identify`.
 */
export interface RequestSlot {
  release: (() => void) | undefined;
}

/**
 * What every request passes before any binding reads its body: the server is open and not over its
 * in-flight bound, the credential is good, the caller is within its rate and its own in-flight bound.
 * Auth comes before the body, so an anonymous request never costs a body read; the per-caller bound
 * comes before it too, so one caller's slow bodies hold only its own slots.
 */
export class Admission {
  #inFlight = 0;
  readonly #callerSlots: PerCallerSlots;

  constructor(private readonly options: AdmissionOptions) {
    this.#callerSlots = new PerCallerSlots(options.maxRequestsInFlightPerCaller);
  }

  /** Runs `work` counted against the in-flight bound, or answers `refuse(…)` when closing or full. */
  async admit<T>(work: (slot: RequestSlot) => Promise<T>, refuse: (refusal: Refusal) => T): Promise<T> {
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
    const slot: RequestSlot = { release: undefined };
    try {
      return await work(slot);
    } finally {
      this.#inFlight--;
      slot.release?.();
    }
  }

  /**
   * The authenticated caller within its rate and its in-flight bound (holding one of its slots in `slot`
   * until the request's answer is out), or why not. Throws an InternalError when `authenticate` returned
   * a workspace id the stores cannot hold.
   */
  async identify(headers: HeaderReader, trace: RequestTrace, slot: RequestSlot): Promise<Caller | Refusal> {
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
    this.#checkWorkspaceId(auth.workspaceId, trace);
    const caller: Caller = { workspaceId: auth.workspaceId, key: auth.principal ?? `workspace:${auth.workspaceId}` };
    // Counted before decoding, so a flood of garbage is limited like any other traffic.
    const decision = rateLimiter?.take(caller.key, this.options.now().getTime());
    if (decision && !decision.allowed) {
      telemetry.refused("rate_limit");
      return { kind: "refusal", status: 429, message: "Rate limit exceeded", retryAfterMs: decision.retryAfterMs };
    }
    const release = this.#callerSlots.take(caller.key);
    if (!release) {
      telemetry.refused("caller_in_flight_limit");
      return {
        kind: "refusal",
        status: 429,
        message: "Too many requests in flight for this caller",
        retryAfterMs: 1000,
      };
    }
    slot.release?.();
    slot.release = release;
    return caller;
  }

  /**
   * A workspace id the stores cannot hold is the embedder's misconfiguration, not an outage: it is
   * answered at once as a non-retryable -32603 (HTTP 500 in HTTP+JSON) that names the field, never as
   * the 503 "retry" a failing store would give.
   */
  #checkWorkspaceId(workspaceId: unknown, trace: RequestTrace): void {
    const problem =
      typeof workspaceId !== "string" || workspaceId === ""
        ? "must be a non-empty string"
        : this.options.checkWorkspaceId?.(workspaceId);
    if (problem === undefined) return;
    const { logger, telemetry } = this.options;
    const shown = typeof workspaceId === "string" ? workspaceId.slice(0, 100) : typeof workspaceId;
    logger.error(
      { workspaceId: shown, ...telemetry.logFields(trace) },
      `authenticate returned a workspaceId the stores refuse: it ${problem}`,
    );
    throw new InternalError(`Server misconfigured: the workspaceId from authenticate ${problem}`, {
      field: "workspaceId",
    });
  }
}

function unavailable(message: string): Refusal {
  return { kind: "refusal", status: 503, message };
}
