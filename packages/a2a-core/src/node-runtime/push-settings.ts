import { AllowedHostsError, parseAllowedHosts } from "../runtime/push/parse-allowed-hosts.js";
import { ConfigError, durationSetting, onOffSetting } from "./settings.js";

/** A server's push-notification settings, read by `pushSettings` (the handler's `push` options take them). */
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
}

const DEFAULT_HORIZON = "24h";
const DEFAULT_MAX_RETRY_WAIT = "1h";
/** Shorter, and a receiver that restarts would lose notifications to the first retries' backoff. */
const MIN_HORIZON = "1m";

/**
 * PUSH_NOTIFICATIONS, PUSH_ALLOWED_HOSTS, PUSH_HORIZON (default 24h, at least 1m) and PUSH_MAX_RETRY_WAIT
 * (default 1h). A mistake is a ConfigError naming the variable.
 */
export function pushSettings(env: NodeJS.ProcessEnv): PushSettings {
  return {
    enabled: onOffSetting(env.PUSH_NOTIFICATIONS, "PUSH_NOTIFICATIONS"),
    allowedHosts: allowedHosts(env.PUSH_ALLOWED_HOSTS),
    horizonMs: durationSetting(
      env.PUSH_HORIZON,
      { name: "PUSH_HORIZON", min: MIN_HORIZON, example: DEFAULT_HORIZON },
      DEFAULT_HORIZON,
    ),
    maxRetryWaitMs: durationSetting(
      env.PUSH_MAX_RETRY_WAIT,
      { name: "PUSH_MAX_RETRY_WAIT", example: DEFAULT_MAX_RETRY_WAIT },
      DEFAULT_MAX_RETRY_WAIT,
    ),
  };
}

/**
 * `hooks.internal, 10.1.2.3, 10.20.0.0/16, fd00::/8`, read by `parseAllowedHosts` (the rules the SSRF
 * guard itself reads the list by). An entry it cannot read stops the start, naming the entry: one the
 * guard misread would silently allow nothing, or something else.
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
