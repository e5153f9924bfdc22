import { type CacheInvalidation, RecentMisses } from "@a2a-partner/postgres-store";

export const UNKNOWN_TOKEN_DEFAULTS = { ttlMs: 10_000, capacity: 10_000 } as const;

export interface UnknownTokenOptions {
  /** How long a token the database does not know is refused from memory (ms). 0: never remembered. */
  unknownTokenTtlMs?: number;
  /** How many unknown tokens are remembered at most; one more empties that memory. */
  unknownTokenCapacity?: number;
}

/**
 * Tokens the database did not know, by hash (postgres-store's RecentMisses on api_tokens): a client (or
 * a flood) repeating a bad token costs one lookup, not one per request, and a token created meanwhile
 * works at once. Undefined (nothing remembered) without an invalidation feed, or with a TTL of 0.
 */
export function unknownTokens(
  invalidation: CacheInvalidation | undefined,
  options: UnknownTokenOptions = {},
): RecentMisses | undefined {
  return RecentMisses.create(invalidation, ["api_tokens"], {
    ttlMs: options.unknownTokenTtlMs ?? UNKNOWN_TOKEN_DEFAULTS.ttlMs,
    capacity: options.unknownTokenCapacity ?? UNKNOWN_TOKEN_DEFAULTS.capacity,
  });
}
