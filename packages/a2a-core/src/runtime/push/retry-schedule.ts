/** The first retry waits up to this long; each further one up to twice the previous bound. */
export const BACKOFF_BASE_MS = 1_000;
/** No backoff wait is longer than this (a receiver's `Retry-After` may still ask for longer). */
export const BACKOFF_CAP_MS = 60 * 60 * 1_000;

/**
 * How long to wait after failed attempt number `attempt` (1 = the first): exponential backoff with full
 * jitter, a random wait between 0 and min(cap, base × 2^(attempt−1)), so receivers that failed together
 * are not hit together again. A `Retry-After` that asks for longer wins. `capMs` (default
 * `BACKOFF_CAP_MS`) is the embedder's `push.maxRetryWaitMs`.
 */
export function backoffMs(
  attempt: number,
  retryAfterMs: number | undefined,
  random: () => number,
  capMs: number = BACKOFF_CAP_MS,
): number {
  const bound = Math.min(capMs, BACKOFF_BASE_MS * 2 ** Math.min(Math.max(attempt - 1, 0), 32));
  const jittered = Math.floor(random() * bound);
  return retryAfterMs !== undefined && retryAfterMs > jittered ? retryAfterMs : jittered;
}

/**
 * A `Retry-After` header in milliseconds from `now`: delay-seconds (`120`) or an HTTP date. `undefined`
 * when absent or unreadable; 0 for a date in the past.
 */
export function retryAfterMs(header: string | null, now: Date): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1_000;
  const at = Date.parse(value);
  if (!Number.isFinite(at) || !/[a-z]/i.test(value)) return undefined;
  return Math.max(0, at - now.getTime());
}

/**
 * When to try again, or `undefined` to give up: the next attempt would fall past `durableAt +
 * horizonMs`.
 */
export function nextAttemptAt(durableAt: string, horizonMs: number, now: Date, waitMs: number): Date | undefined {
  const at = now.getTime() + waitMs;
  const horizon = Date.parse(durableAt) + horizonMs;
  return Number.isFinite(horizon) && at > horizon ? undefined : new Date(at);
}
