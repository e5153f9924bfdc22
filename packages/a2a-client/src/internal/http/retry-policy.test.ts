import { describe, expect, it } from "vitest";
import { backoffDelay, decideHttpRetry, isRetryableStatus, MAX_RETRY_AFTER_MS } from "./retry-policy.js";

describe("backoffDelay", () => {
  it("doubles from 0.5 s and never exceeds 8 s, however many retries", () => {
    const noJitter = () => 0;
    expect([0, 1, 2, 3, 4, 5, 50, 10_000].map((i) => backoffDelay(i, {}, noJitter))).toEqual([
      500, 1000, 2000, 4000, 8000, 8000, 8000, 8000,
    ]);
  });

  it("takes up to 25 % off for jitter and stays within bounds for any random value", () => {
    for (const r of [0, 0.3, 0.5, 0.999999, 1, -1, 2, Number.NaN]) {
      for (let i = 0; i < 8; i++) {
        const base = Math.min(500 * 2 ** i, 8000);
        const delay = backoffDelay(i, {}, () => r);
        expect(delay).toBeGreaterThanOrEqual(base * 0.75);
        expect(delay).toBeLessThanOrEqual(base);
      }
    }
  });

  it("follows custom settings", () => {
    expect(backoffDelay(3, { initialDelayMs: 10, maxDelayMs: 50 }, () => 0)).toBe(50);
    expect(backoffDelay(1, { initialDelayMs: 10, maxDelayMs: 50 }, () => 0)).toBe(20);
  });
});

describe("retry decisions", () => {
  it("retries 408, 409, 429 and 5xx, and nothing else", () => {
    const retryable = [408, 409, 429, 500, 502, 503, 504, 599];
    const final = [400, 401, 403, 404, 413, 422];
    for (const status of retryable) expect(isRetryableStatus(status)).toBe(true);
    for (const status of final) expect(isRetryableStatus(status)).toBe(false);
  });

  it("lets the server decide with x-should-retry", () => {
    expect(isRetryableStatus(503, new Headers({ "x-should-retry": "false" }))).toBe(false);
    expect(isRetryableStatus(400, new Headers({ "x-should-retry": "true" }))).toBe(true);
  });

  it("waits what retry-after says up to a minute, and does not retry beyond", () => {
    const decide = (value: string) => decideHttpRetry(429, new Headers({ "retry-after": value }), 0, {}, () => 0);
    expect(decide("0")).toEqual({ retry: true, delayMs: 0 });
    expect(decide("60")).toEqual({ retry: true, delayMs: MAX_RETRY_AFTER_MS });
    expect(decide("61")).toEqual({ retry: false });
    expect(decideHttpRetry(503, new Headers(), 2, {}, () => 0)).toEqual({ retry: true, delayMs: 2000 });
    expect(decideHttpRetry(401, new Headers({ "retry-after": "1" }), 0, {}, () => 0)).toEqual({ retry: false });
  });
});
