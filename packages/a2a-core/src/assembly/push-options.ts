import type { PushDestinationCheck } from "../runtime/push/push-side.js";

/**
 * Push notifications (`A2AHandlerOptions.push`). They are on when `stores.push` is given and this is not
 * `false`; then the card says `pushNotifications: true` and each instance runs a dispatcher that delivers
 * every stored event to the task's configs, signed by the Standard Webhooks specification.
 */
export interface A2APushOptions {
  /**
   * The workspace's signing secrets (`whsec_…`), newest first: every delivery is signed with each, so a
   * receiver that knows either verifies it during a rotation's grace period. Called per delivery; cache
   * in the implementation if it is slow.
   */
  signingSecrets(workspaceId: string): Promise<readonly string[]>;
  /**
   * Refuses destinations a config may not name (SSRF). Default: only `http:`/`https:`, and no loopback,
   * private, link-local, CGNAT, multicast or metadata address, literal or resolved.
   */
  checkDestination?: PushDestinationCheck;
  /**
   * What deliveries are sent with. Default: the runtime's `fetch`. On Node, pass `guardedPushFetch()`
   * from `@a2a-partner/a2a-core/node` to check every connection's address again (DNS rebinding).
   */
  fetch?: typeof fetch;
  /** Configs one task may have. Default `A2A_LIMITS.pushConfigsPerTask`. */
  maxConfigsPerTask?: number;
  /** How long a delivery is retried after its event became durable before it is given up. Default 24 h. */
  horizonMs?: number;
  /**
   * The longest wait between two attempts of a delivery: the backoff (1 s doubling, full jitter) stops
   * growing here, so a receiver back after a long outage gets its notifications within about this long.
   * A `Retry-After` that asks for longer still wins. Default 1 h.
   */
  maxRetryWaitMs?: number;
  /** One attempt's time limit, connection to answer. Default 10 s. */
  attemptTimeoutMs?: number;
  /** Run a dispatcher in this process. Default `true`; `false` for instances that only answer requests. */
  dispatch?: boolean;
}
