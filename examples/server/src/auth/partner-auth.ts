import type { Authenticate, AuthOutcome } from "@a2a-partner/a2a-core";
import { type CacheInvalidation, InvalidatedCache, type Queryable } from "@a2a-partner/postgres-store";
import { bearerToken, hashToken, resolveToken } from "./tokens.ts";

/** Live partner tokens remembered per process (by hash), emptied whenever api_tokens changes. */
const TOKEN_CACHE_SIZE = 10_000;
/** How long a resolved token is answered from memory at most, whatever the notifications say. */
const MAX_AGE_MS = 60_000;

/**
 * The A2A endpoint's rule: a live partner token → its workspace; a user token → 403; else 401. With
 * `invalidation`, tokens that resolved are remembered in memory, and forgotten by every instance as soon
 * as any statement changes api_tokens (a revocation included); unknown tokens are never remembered.
 */
export function partnerAuthenticator(db: Queryable, invalidation?: CacheInvalidation): Authenticate {
  const cache = invalidation
    ? new InvalidatedCache<{ outcome: AuthOutcome; expiresAtMs: number }>(
        invalidation,
        ["api_tokens"],
        TOKEN_CACHE_SIZE,
      )
    : undefined;
  return async (headers) => {
    const token = bearerToken(headers.get("authorization"));
    if (!token)
      return { ok: false, status: 401, message: "Missing bearer token: send Authorization: Bearer <APIToken>" };
    const key = cache ? hashToken(token, "base64") : "";
    const cached = cache?.get(key);
    // A token with an expiry is remembered only until then: expiring changes no row, so no notification
    // would announce it.
    if (cached && Date.now() < cached.expiresAtMs) return cached.outcome;
    const ticket = cache?.ticket();
    const resolved = await resolveToken(db, token);
    if (!resolved) return { ok: false, status: 401, message: "Invalid or revoked bearer token" };
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
    cache?.remember(key, { outcome, expiresAtMs }, ticket);
    return outcome;
  };
}
