import { describe, expect, it, vi } from "vitest";
import type { Database } from "../database.js";
import { CacheInvalidation, InvalidatedCache } from "./cache-invalidation.js";

/** A Database whose LISTEN fails `failures` times, then works; `notify` reaches its listener. */
function flakyListenDb(failures: number) {
  let onPayload: ((payload: string) => void) | undefined;
  const channels: string[] = [];
  const db = {
    async listen(channel: string, handler: (payload: string) => void) {
      channels.push(channel);
      if (failures-- > 0) throw new Error("connection refused");
      onPayload = handler;
      return async () => {
        onPayload = undefined;
      };
    },
  } as unknown as Database;
  return { db, channels, notify: (table: string) => onPayload?.(table) };
}

describe("CacheInvalidation", () => {
  it("bypasses the caches while LISTEN cannot start, tries again, and trusts them once it runs", async () => {
    const { db, channels, notify } = flakyListenDb(2);
    const reported: unknown[] = [];
    const invalidation = new CacheInvalidation(db, {
      channel: "cache_changes",
      retryMs: 10,
      onUnavailable: (error) => reported.push(error),
    });
    const cache = new InvalidatedCache<string>(invalidation, ["api_tokens"], 10);
    await invalidation.start();
    expect(invalidation.trusted).toBe(false);
    cache.remember("k", "v", cache.ticket());
    expect(cache.get("k")).toBeUndefined(); // nothing is served from an unwatched cache
    await vi.waitFor(() => expect(invalidation.trusted).toBe(true), { timeout: 1_000 });
    cache.remember("k", "v", cache.ticket());
    expect(cache.get("k")).toBe("v");
    expect(reported).toHaveLength(2); // each failed LISTEN was reported
    expect(new Set(channels)).toEqual(new Set(["cache_changes"]));
    notify("api_tokens");
    expect(cache.get("k")).toBeUndefined();
    await invalidation.close();
  });

  it("never remembers a value read before a change it was told of", async () => {
    const { db, notify } = flakyListenDb(0);
    const invalidation = new CacheInvalidation(db, { channel: "cache_changes" });
    const cache = new InvalidatedCache<string>(invalidation, ["environments"], 10);
    await invalidation.start();
    const ticket = cache.ticket(); // a lookup starts …
    notify("environments"); // … a change commits and is announced while it runs …
    cache.remember("store-001", "stale", ticket); // … and what it read may predate the change
    expect(cache.get("store-001")).toBeUndefined();
    await invalidation.close();
  });

  it("looks a key up once, serves it from memory while fresh, and keeps no load that a change overtook", async () => {
    const { db, notify } = flakyListenDb(0);
    const invalidation = new CacheInvalidation(db, { channel: "cache_changes" });
    const cache = new InvalidatedCache<{ id: string; fresh: boolean }>(invalidation, ["workflows"], 10);
    await invalidation.start();
    let loads = 0;
    const load = async () => ({ id: `id-${++loads}`, fresh: true });
    expect(await cache.lookup("restock", load)).toEqual({ id: "id-1", fresh: true });
    expect(await cache.lookup("restock", load)).toEqual({ id: "id-1", fresh: true });
    expect(loads).toBe(1);

    notify("workflows");
    const overtaken = cache.lookup("restock", async () => {
      notify("workflows"); // a change announced while the database is being read
      return { id: "stale", fresh: true };
    });
    expect(await overtaken).toEqual({ id: "stale", fresh: true });
    expect(await cache.lookup("restock", load)).toEqual({ id: "id-2", fresh: true });

    const stale = await cache.lookup("expiring", async () => ({ id: "old", fresh: false }));
    expect(stale.id).toBe("old");
    const renewed = await cache.lookup("expiring", load, (value) => value.fresh);
    expect(renewed.id).toBe("id-3"); // not fresh any more: loaded again
    expect(await cache.lookup("missing", async () => undefined)).toBeUndefined();
    expect(await cache.lookup("missing", load)).toEqual({ id: "id-4", fresh: true }); // a miss was not kept
    await invalidation.close();
  });
});
