import { parseRetryAfter } from "../../errors.js";

/** Exponential backoff settings (openai-node's defaults: 0.5 s doubling, capped at 8 s). */
export interface BackoffOptions {
  /** Delay before the first retry, before jitter. Default 500 ms. */
  initialDelayMs?: number;
  /** Upper bound of any computed delay. Default 8000 ms. */
  maxDelayMs?: number;
}

export const DEFAULT_BACKOFF: Required<BackoffOptions> = { initialDelayMs: 500, maxDelayMs: 8000 };

/** Server hints above this are not waited for: the error goes to the caller instead. */
export const MAX_RETRY_AFTER_MS = 60_000;

/**
 * Delay before retry number `retryIndex` (0 for the first retry): `initial * 2^retryIndex`, capped, then
 * reduced by up to 25 % of jitter so that many clients dropped at once do not come back in lockstep.
 */
export function backoffDelay(
  retryIndex: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const initial = options.initialDelayMs ?? DEFAULT_BACKOFF.initialDelayMs;
  const max = options.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs;
  const exponent = Math.max(0, Math.min(retryIndex, 30));
  const base = Math.min(initial * 2 ** exponent, max);
  const jitter = 1 - clamp01(random()) * 0.25;
  return Math.max(0, base * jitter);
}

/** Statuses worth retrying (as openai-node): timeout, conflict (lock), rate limit, server errors. */
export function isRetryableStatus(status: number, headers?: Headers): boolean {
  // A server may say explicitly whether a retry can help.
  const hint = headers?.get("x-should-retry");
  if (hint === "true") return true;
  if (hint === "false") return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export type RetryDecision = { retry: true; delayMs: number } | { retry: false };

/**
 * Whether and when to retry after an HTTP error answer. A `retry-after` hint is honoured when it is at
 * most a minute; a longer one is not waited out (the caller gets the error and its `retryAfterMs`).
 */
export function decideHttpRetry(
  status: number,
  headers: Headers,
  retryIndex: number,
  backoff: BackoffOptions,
  random: () => number,
): RetryDecision {
  if (!isRetryableStatus(status, headers)) return { retry: false };
  const hinted = parseRetryAfter(headers);
  if (hinted !== undefined) {
    if (hinted > MAX_RETRY_AFTER_MS) return { retry: false };
    return { retry: true, delayMs: hinted };
  }
  return { retry: true, delayMs: backoffDelay(retryIndex, backoff, random) };
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0;
}
