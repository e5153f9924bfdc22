import { type CacheInvalidation, InvalidatedCache } from "@a2a-partner/postgres-store";

export const UNKNOWN_TOKEN_DEFAULTS = { ttlMs: 10_000, capacity: 10_000 } as const;

export interface UnknownTokenOptions {
  /** How long a token the database does not know is refused from memory (ms). 0: never remembered. */
  unknownTokenTtlMs?: number;
  /** How many unknown tokens are remembered at most; one more empties that memory. */
  unknownTokenCapacity?: number;
}

/**
 * Tokens the database did not know, by hash: remembered for a short while and in bounds, and forgotten by
 * every instance as soon as any statement changes api_tokens (a token created meanwhile works at once). A
 * client (or a flood) repeating a bad token costs one lookup, not one per request. Apart from the live
 * tokens' memory, so a flood of unknown ones never pushes a live token out.
 */
export class UnknownTokens {
  readonly #cache: InvalidatedCache<number>;
  readonly #ttlMs: number;

  private constructor(cache: InvalidatedCache<number>, ttlMs: number) {
    this.#cache = cache;
    this.#ttlMs = ttlMs;
  }

  /** Undefined (nothing remembered) without an invalidation feed, or with a TTL of 0. */
  static create(
    invalidation: CacheInvalidation | undefined,
    options: UnknownTokenOptions = {},
  ): UnknownTokens | undefined {
    const ttlMs = options.unknownTokenTtlMs ?? UNKNOWN_TOKEN_DEFAULTS.ttlMs;
    if (!invalidation || ttlMs <= 0) return undefined;
    const capacity = options.unknownTokenCapacity ?? UNKNOWN_TOKEN_DEFAULTS.capacity;
    return new UnknownTokens(new InvalidatedCache<number>(invalidation, ["api_tokens"], capacity), ttlMs);
  }

  /** Whether `key` (a token's hash) was refused by the database a moment ago. */
  has(key: string): boolean {
    const expiresAtMs = this.#cache.get(key);
    return expiresAtMs !== undefined && Date.now() < expiresAtMs;
  }

  /** Taken before the lookup: an answer that may predate a change to api_tokens is not remembered. */
  ticket(): number | undefined {
    return this.#cache.ticket();
  }

  remember(key: string, ticket: number | undefined): void {
    this.#cache.remember(key, Date.now() + this.#ttlMs, ticket);
  }
}
