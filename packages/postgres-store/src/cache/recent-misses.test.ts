import { expect, it, vi } from "vitest";
import type { Database } from "../database.js";
import { CacheInvalidation } from "./cache-invalidation.js";
import { RecentMisses, sharedLoads } from "./recent-misses.js";

it("RecentMisses remembers a miss for its TTL, and forgets every miss when a watched table changes", async () => {
  let notify: ((table: string) => void) | undefined;
  const db = {
    listen: async (_channel: string, handler: (table: string) => void) => {
      notify = handler;
      return async () => {};
    },
  } as unknown as Database;
  const invalidation = new CacheInvalidation(db, { channel: "changes" });
  await invalidation.start();
  expect(RecentMisses.create(undefined, ["api_tokens"], { ttlMs: 1_000, capacity: 10 })).toBeUndefined();
  expect(RecentMisses.create(invalidation, ["api_tokens"], { ttlMs: 0, capacity: 10 })).toBeUndefined();
  const misses = RecentMisses.create(invalidation, ["api_tokens"], { ttlMs: 1_000, capacity: 10 });
  vi.useFakeTimers({ toFake: ["Date"] });
  try {
    misses?.remember("k", misses.ticket());
    expect(misses?.has("k")).toBe(true);
    vi.advanceTimersByTime(1_000);
    expect(misses?.has("k")).toBe(false);
    misses?.remember("k", misses.ticket());
    notify?.("api_tokens");
    expect(misses?.has("k")).toBe(false);
  } finally {
    vi.useRealTimers();
    await invalidation.close();
  }
});

it("sharedLoads runs one load per key at a time, and a new one once it settled", async () => {
  const shared = sharedLoads<number>();
  let calls = 0;
  const load = async () => ++calls;
  expect(await Promise.all([shared("a", load), shared("a", load), shared("b", load)])).toEqual([1, 1, 2]);
  expect(await shared("a", load)).toBe(3);
});
