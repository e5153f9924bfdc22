import type { Authenticate, AuthOutcome } from "@a2a-partner/a2a-core";
import type { Queryable } from "@a2a-partner/postgres-store";
import { type CacheInvalidation, InvalidatedCache } from "../cache/cache-invalidation.ts";
import { bearerToken, hashToken, resolveToken } from "./tokens.ts";

/** Live partner tokens remembered per process (by hash), emptied whenever api_tokens changes. */
const TOKEN_CACHE_SIZE = 10_000;
/** How long a resolved token is answered from memory at most, whatever the notifications say. */
const MAX_AGE_MS = 60_000;

export interface PartnerAuthOptions {
  /** How long a token the database does not know is refused from memory (ms). 0: never remembered. */
  unknownTokenTtlMs?: number;
  /** How many unknown tokens are remembered at most; one more empties that memory. */
  unknownTokenCapacity?: number;
}

export const UNKNOWN_TOKEN_DEFAULTS = { ttlMs: 10_000, capacity: 10_000 } as const;

const UNKNOWN: AuthOutcome = { ok: false, status: 401, message: "Invalid or revoked bearer token" };

interface Remembered {
  outcome: AuthOutcome;
  expiresAtMs: number;
}

/**
 * The A2A endpoint's rule: a live partner token → its workspace; a user token → 403; else 401. With
 * `invalidation`, what the database answered is remembered in memory, and forgotten by every instance as
 * soon as any statement changes api_tokens (a revocation, a new token): a resolved token for up to a
 * minute, an unknown one for `unknownTokenTtlMs`, so a client (or a flood) repeating a bad token costs one
 * lookup, not one per request. Concurrent lookups of one token share a single query.
 */
export function partnerAuthenticator(
  db: Queryable,
  invalidation?: CacheInvalidation,
  options: PartnerAuthOptions = {},
): Authenticate {
  const unknownTtlMs = options.unknownTokenTtlMs ?? UNKNOWN_TOKEN_DEFAULTS.ttlMs;
  const known = invalidation
    ? new InvalidatedCache<Remembered>(invalidation, ["api_tokens"], TOKEN_CACHE_SIZE)
    : undefined;
  // Apart from the live tokens, so a flood of unknown ones never pushes a live token out of memory.
  const unknown =
    invalidation && unknownTtlMs > 0
      ? new InvalidatedCache<Remembered>(
          invalidation,
          ["api_tokens"],
          options.unknownTokenCapacity ?? UNKNOWN_TOKEN_DEFAULTS.capacity,
        )
      : undefined;
  const inFlight = new Map<string, Promise<AuthOutcome>>();

  async function lookUp(token: string, key: string): Promise<AuthOutcome> {
    // Taken before the query: an answer that may predate a change to api_tokens is not remembered.
    const ticket = known?.ticket();
    const unknownTicket = unknown?.ticket();
    const resolved = await resolveToken(db, token);
    if (!resolved) {
      unknown?.remember(key, { outcome: UNKNOWN, expiresAtMs: Date.now() + unknownTtlMs }, unknownTicket);
      return UNKNOWN;
    }
    const outcome: AuthOutcome =
      resolved.kind !== "partner" || !resolved.workspaceId
        ? {
            ok: false,
            status: 403,
            message: "A user session token is not accepted here: use a workspace partner token",
          }
        : { ok: true, workspaceId: resolved.workspaceId, principal: `token:${resolved.id}` };
    // Also at most a minute: a backstop should a change notification ever fail to arrive unnoticed.
    const expiresAtMs = Math.min(resolved.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY, Date.now() + MAX_AGE_MS);
    known?.remember(key, { outcome, expiresAtMs }, ticket);
    return outcome;
  }

  return async (headers) => {
    const token = bearerToken(headers.get("authorization"));
    if (!token)
      return { ok: false, status: 401, message: "Missing bearer token: send Authorization: Bearer <APIToken>" };
    if (!known) return lookUp(token, "");
    const key = hashToken(token, "base64");
    // A token with an expiry is remembered only until then: expiring changes no row, so no notification
    // would announce it.
    const cached = known.get(key) ?? unknown?.get(key);
    if (cached && Date.now() < cached.expiresAtMs) return cached.outcome;
    const pending = inFlight.get(key);
    if (pending) return pending;
    const lookup = lookUp(token, key).finally(() => inFlight.delete(key));
    inFlight.set(key, lookup);
    return lookup;
  };
}
