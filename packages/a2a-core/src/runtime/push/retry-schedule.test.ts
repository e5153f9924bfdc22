import { describe, expect, it } from "vitest";
import { BACKOFF_CAP_MS, backoffMs, nextAttemptAt, retryAfterMs } from "./retry-schedule.js";

const NOW = new Date("2026-03-01T12:00:00.000Z");

describe("the push retry schedule", () => {
  it("waits at random up to 1 s, 2 s, 4 s … doubling, never past an hour", () => {
    expect(backoffMs(1, undefined, () => 0.999)).toBe(999);
    expect(backoffMs(2, undefined, () => 0.999)).toBe(1998);
    expect(backoffMs(4, undefined, () => 0.5)).toBe(4000);
    expect(backoffMs(13, undefined, () => 0.999)).toBe(Math.floor(0.999 * BACKOFF_CAP_MS));
    expect(backoffMs(500, undefined, () => 0.999)).toBe(Math.floor(0.999 * BACKOFF_CAP_MS));
    expect(backoffMs(3, undefined, () => 0)).toBe(0);
  });

  it("stops growing at the embedder's maximum wait (push.maxRetryWaitMs), a longer Retry-After still winning", () => {
    expect(backoffMs(1, undefined, () => 0.999, 5_000)).toBe(999);
    expect(backoffMs(4, undefined, () => 0.999, 5_000)).toBe(4995);
    expect(backoffMs(40, undefined, () => 0.999, 5_000)).toBe(4995);
    expect(backoffMs(40, 60_000, () => 0.999, 5_000)).toBe(60_000);
  });

  it("honours a Retry-After that asks for longer than the jittered wait, and only then", () => {
    expect(backoffMs(1, 30_000, () => 0.5)).toBe(30_000);
    expect(backoffMs(20, 30_000, () => 0.5)).toBe(BACKOFF_CAP_MS / 2);
    expect(backoffMs(1, 2 * BACKOFF_CAP_MS, () => 0.5)).toBe(2 * BACKOFF_CAP_MS);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterMs("120", NOW)).toBe(120_000);
    expect(retryAfterMs(" 0 ", NOW)).toBe(0);
    expect(retryAfterMs("Sun, 01 Mar 2026 12:00:30 GMT", NOW)).toBe(30_000);
    expect(retryAfterMs("Sun, 01 Mar 2026 11:00:00 GMT", NOW)).toBe(0);
    expect(retryAfterMs(null, NOW)).toBeUndefined();
    expect(retryAfterMs("soon", NOW)).toBeUndefined();
    expect(retryAfterMs("-5", NOW)).toBeUndefined();
    expect(retryAfterMs("1.5", NOW)).toBeUndefined();
  });

  it("gives up when the next attempt would fall past the horizon", () => {
    const durableAt = "2026-03-01T11:00:00.000Z";
    const hour = 3_600_000;
    expect(nextAttemptAt(durableAt, 2 * hour, NOW, 30_000)).toEqual(new Date(NOW.getTime() + 30_000));
    expect(nextAttemptAt(durableAt, 2 * hour, NOW, hour)).toEqual(new Date(NOW.getTime() + hour));
    expect(nextAttemptAt(durableAt, 2 * hour, NOW, hour + 1)).toBeUndefined();
  });
});
