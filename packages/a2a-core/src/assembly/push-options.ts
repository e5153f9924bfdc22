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
   * Refuses destinations a config may not name (SSRF), when it is made. Default from the root entry, on
   * any runtime: only `http:`/`https:`, no credentials in the URL, no loopback, private, link-local,
   * CGNAT, multicast or metadata address written literally, nor the names `localhost`, `*.localhost`,
   * `metadata.google.internal` — a name is **not** resolved (fetch runtimes cannot). Default from
   * `createA2AHandler` of `@a2a-partner/a2a-core/node`: the same rules, and a name is resolved and refused
   * if any of its addresses is (`nodePushDestinationCheck`).
   */
  checkDestination?: PushDestinationCheck;
  /**
   * What deliveries are sent with. Default from the root entry: the runtime's `fetch`, whose connections
   * are not checked. Default from `createA2AHandler` of `@a2a-partner/a2a-core/node`: `guardedPushFetch`,
   * which judges the address of every connection it opens (DNS rebinding).
   */
  fetch?: typeof fetch;
  /**
   * Receivers on your own network the default check and sender let through: host names, IP addresses
   * and CIDR blocks (`["hooks.internal", "10.1.2.3", "10.8.0.0/16"]`). Not used by a `checkDestination`
   * or `fetch` you pass.
   */
  allowedHosts?: readonly string[];
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
