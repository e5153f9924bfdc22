/** Decides whether one more request of a caller may pass now. */
export interface RateLimiter {
  take(key: string, nowMs: number): RateDecision;
}

export type RateDecision = { allowed: true } | { allowed: false; retryAfterMs: number };

export interface TokenBucketOptions {
  /** Sustained requests per second per key. */
  ratePerSecond: number;
  /** Requests a key may make at once after being idle. Default: 2 × ratePerSecond. */
  burst?: number;
  /** Keys tracked at most; the least recently seen are forgotten past it (a forgotten key starts full). */
  maxKeys?: number;
}

/**
 * A token bucket per key (per token, in the reference server), in process memory: each instance limits on
 * its own, so N instances allow up to N times the rate. O(1) per request.
 */
export class TokenBucketRateLimiter implements RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly rate: number;
  private readonly burst: number;
  private readonly maxKeys: number;

  constructor(options: TokenBucketOptions) {
    if (!(options.ratePerSecond > 0)) throw new RangeError("ratePerSecond must be positive");
    this.rate = options.ratePerSecond / 1000;
    this.burst = Math.max(1, options.burst ?? options.ratePerSecond * 2);
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  take(key: string, nowMs: number): RateDecision {
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, at: nowMs };
    bucket.tokens = Math.min(this.burst, bucket.tokens + Math.max(0, nowMs - bucket.at) * this.rate);
    bucket.at = nowMs;
    // Re-inserted so the Map's order is least recently seen first.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > this.maxKeys) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterMs: Math.ceil((1 - bucket.tokens) / this.rate) };
  }
}
