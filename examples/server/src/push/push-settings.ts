import { AllowedHostsError, parseAllowedHosts } from "@a2a-partner/a2a-core";
import { parseDuration } from "../auth/duration.ts";
import { ConfigError } from "../config-error.ts";

/** The push-notification settings of the reference server (docs/operations.md, Configuration). */
export interface PushSettings {
  /** PUSH_NOTIFICATIONS: `on` (default) or `off` (the push methods answer -32003, the card says false). */
  enabled: boolean;
  /**
   * PUSH_ALLOWED_HOSTS: hosts, IPs and CIDRs a push config may name although the SSRF guard would refuse
   * them (a receiver on the private network). Host names lower-cased, IPv6 without brackets.
   */
  allowedHosts: string[];
  /** PUSH_HORIZON: how long a delivery is retried after its event became durable before it is given up (ms). */
  horizonMs: number;
  /**
   * PUSH_MAX_RETRY_WAIT: the longest backoff wait between two attempts (ms). Default 1 h; shorter gets
   * notifications to a receiver sooner after a long outage, at the price of more attempts while it is down.
   */
  maxRetryWaitMs: number;
  /**
   * PUSH_DISPATCH_THREAD: `on` (default) or `off`. On PostgreSQL, deliveries go out from a worker thread of
   * their own (app/push-dispatch.ts) rather than the event loop that answers requests; PGlite always
   * delivers from the server's thread (its database lives in this process).
   */
  dispatchThread: boolean;
}

const DEFAULT_HORIZON = "24h";
const DEFAULT_MAX_RETRY_WAIT = "1h";
/** Shorter, and a receiver that restarts would lose notifications to the first retries' backoff. */
const MIN_HORIZON_MS = 60_000;

export function pushSettings(env: NodeJS.ProcessEnv): PushSettings {
  return {
    enabled: switchOf(env.PUSH_NOTIFICATIONS, "PUSH_NOTIFICATIONS"),
    allowedHosts: allowedHosts(env.PUSH_ALLOWED_HOSTS),
    horizonMs: horizon(env.PUSH_HORIZON),
    maxRetryWaitMs: maxRetryWait(env.PUSH_MAX_RETRY_WAIT),
    dispatchThread: switchOf(env.PUSH_DISPATCH_THREAD, "PUSH_DISPATCH_THREAD"),
  };
}

function switchOf(value: string | undefined, name: string): boolean {
  if (!value) return true;
  const normalized = value.trim().toLowerCase();
  if (normalized === "on") return true;
  if (normalized === "off") return false;
  throw new ConfigError(`${name} must be on or off (unset: on), got "${value}"`);
}

/**
 * `hooks.internal, 10.1.2.3, 10.20.0.0/16, fd00::/8`, read by the core's `parseAllowedHosts` (the rules
 * the SSRF guard itself reads the list by). An entry it cannot read stops the start, naming the entry: one
 * the guard misread would silently allow nothing, or something else.
 */
function allowedHosts(value: string | undefined): string[] {
  try {
    return parseAllowedHosts(value);
  } catch (error) {
    if (!(error instanceof AllowedHostsError)) throw error;
    throw new ConfigError(
      `PUSH_ALLOWED_HOSTS must be comma-separated host names, IPs or CIDRs (10.0.0.0/8); "${error.entry}" is ${error.reason}, in "${value}"`,
    );
  }
}

function horizon(value: string | undefined): number {
  const seconds = parseDuration(value || DEFAULT_HORIZON);
  if (seconds === undefined || seconds * 1000 < MIN_HORIZON_MS) {
    throw new ConfigError(
      `PUSH_HORIZON must be a duration of at least 1m with a unit (s, m, h, d, w), e.g. 24h; got "${value}"`,
    );
  }
  return seconds * 1000;
}

function maxRetryWait(value: string | undefined): number {
  const seconds = parseDuration(value || DEFAULT_MAX_RETRY_WAIT);
  if (seconds === undefined) {
    throw new ConfigError(
      `PUSH_MAX_RETRY_WAIT must be a duration of at least 1s with a unit (s, m, h, d, w), e.g. 1h; got "${value}"`,
    );
  }
  return seconds * 1000;
}
