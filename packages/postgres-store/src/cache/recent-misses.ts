import { type CacheInvalidation, InvalidatedCache } from "./cache-invalidation.js";

/** How long and how many misses a `RecentMisses` remembers. */
export interface RecentMissesOptions {
  /** How long a key the database did not know is answered from memory (ms). 0: never remembered. */
  ttlMs: number;
  /** How many keys are remembered at most; one more empties the memory. */
  capacity: number;
}

/**
 * Keys the database did not know (a made-up bearer token's hash, say): remembered for a short while and
 * in bounds, and forgotten by every instance as soon as any statement changes `tables` (a row created
 * meanwhile is found at once). A client, or a flood, repeating an unknown key costs one lookup, not one
 * per request. Apart from the cache of what was found, so a flood of misses never pushes a hit out.
 */
export class RecentMisses {
  readonly #cache: InvalidatedCache<number>;
  readonly #ttlMs: number;

  private constructor(cache: InvalidatedCache<number>, ttlMs: number) {
    this.#cache = cache;
    this.#ttlMs = ttlMs;
  }

  /** Undefined (nothing remembered) without an invalidation feed, or with a TTL of 0. */
  static create(
    invalidation: CacheInvalidation | undefined,
    tables: readonly string[],
    options: RecentMissesOptions,
  ): RecentMisses | undefined {
    if (!invalidation || options.ttlMs <= 0) return undefined;
    return new RecentMisses(new InvalidatedCache<number>(invalidation, tables, options.capacity), options.ttlMs);
  }

  /** Whether the database did not know `key` a moment ago. */
  has(key: string): boolean {
    const expiresAtMs = this.#cache.get(key);
    return expiresAtMs !== undefined && Date.now() < expiresAtMs;
  }

  /** Taken before the lookup: an answer that may predate a change to the tables is not remembered. */
  ticket(): number | undefined {
    return this.#cache.ticket();
  }

  remember(key: string, ticket: number | undefined): void {
    this.#cache.remember(key, Date.now() + this.#ttlMs, ticket);
  }
}

/**
 * Concurrent loads of one key share a single call of `load`: a burst of requests with the same token, or
 * for the same workspace, costs one query. The call is forgotten once it settles.
 */
export function sharedLoads<V>(): (key: string, load: () => Promise<V>) => Promise<V> {
  const inFlight = new Map<string, Promise<V>>();
  return (key, load) => {
    let loading = inFlight.get(key);
    if (!loading) {
      loading = load().finally(() => inFlight.delete(key));
      inFlight.set(key, loading);
    }
    return loading;
  };
}
