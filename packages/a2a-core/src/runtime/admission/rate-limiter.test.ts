import { describe, expect, it } from "vitest";
import { TokenBucketRateLimiter } from "./rate-limiter.js";

describe("TokenBucketRateLimiter", () => {
  it("allows a burst, then refuses with the time until the next token, then refills", () => {
    const limiter = new TokenBucketRateLimiter({ ratePerSecond: 10, burst: 3 });
    expect([1, 2, 3].map(() => limiter.take("a", 0).allowed)).toEqual([true, true, true]);
    expect(limiter.take("a", 0)).toEqual({ allowed: false, retryAfterMs: 100 });
    expect(limiter.take("a", 50)).toEqual({ allowed: false, retryAfterMs: 50 });
    expect(limiter.take("a", 100).allowed).toBe(true);
    expect(limiter.take("b", 100).allowed).toBe(true);
  });

  it("keeps a bounded number of keys", () => {
    const limiter = new TokenBucketRateLimiter({ ratePerSecond: 1, burst: 1, maxKeys: 2 });
    limiter.take("a", 0);
    limiter.take("b", 0);
    limiter.take("c", 0); // forgets "a", the least recently seen
    expect(limiter.take("a", 0).allowed).toBe(true);
    expect(limiter.take("c", 0).allowed).toBe(false);
  });
});
