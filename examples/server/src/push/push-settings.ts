import { isIP } from "node:net";
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
/** A DNS name: labels of letters, digits and inner hyphens, 253 characters at most. */
const HOST_NAME = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

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
 * `hooks.internal, 10.1.2.3, 10.20.0.0/16, fd00::/8`: each entry a host name, an IP or a CIDR. Anything
 * else (a URL, a port, a wildcard, a prefix too long for its address) stops the start, naming the entry:
 * an entry the guard could not read would silently allow nothing, or be mistaken for another.
 */
function allowedHosts(value: string | undefined): string[] {
  if (!value || value.trim() === "") return [];
  return value.split(",").map((raw) => {
    const entry = raw
      .trim()
      .toLowerCase()
      .replace(/^\[(.*)\]$/, "$1");
    const reason = entry === "" ? "an empty entry (two commas in a row?)" : whyNotAHost(entry);
    if (reason) {
      throw new ConfigError(
        `PUSH_ALLOWED_HOSTS must be comma-separated host names, IPs or CIDRs (10.0.0.0/8); "${raw.trim()}" is ${reason}, in "${value}"`,
      );
    }
    return entry;
  });
}

function whyNotAHost(entry: string): string | undefined {
  if (entry.includes("://")) return "a URL: give its host alone";
  const slash = entry.indexOf("/");
  if (slash >= 0) {
    const address = entry.slice(0, slash);
    const prefix = entry.slice(slash + 1);
    const family = isIP(address);
    if (family === 0) return "not a CIDR: the part before / is not an IP address";
    const max = family === 4 ? 32 : 128;
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max) return `not a CIDR: the prefix must be 0 to ${max}`;
    return undefined;
  }
  if (isIP(entry) !== 0) return undefined;
  if (entry.includes("*")) return "a wildcard: list each host";
  if (/:\d+$/.test(entry)) return "a host with a port: give the host alone (every port is allowed)";
  return HOST_NAME.test(entry) ? undefined : "neither a host name nor an IP address";
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
