import type { Authenticate, AuthOutcome } from "@a2a-partner/a2a-core";
import { type CacheInvalidation, InvalidatedCache, type Queryable } from "@a2a-partner/postgres-store";
import type { Logger } from "../logger.ts";
import { missingTokenReason, type RefusalReason } from "./refusal-reason.ts";
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
export function partnerAuthenticator(db: Queryable, invalidation?: CacheInvalidation, logger?: Logger): Authenticate {
  const cache = invalidation
    ? new InvalidatedCache<{ outcome: AuthOutcome; expiresAtMs: number }>(
        invalidation,
        ["api_tokens"],
        TOKEN_CACHE_SIZE,
      )
    : undefined;
  // Every refusal is a line (info): a partner's misconfigured token shows up in the log with its reason.
  const refused = (outcome: AuthOutcome, reason: RefusalReason, tokenId?: string): AuthOutcome => {
    if (!outcome.ok) {
      logger?.info(
        { endpoint: "a2a", status: outcome.status, reason, ...(tokenId ? { tokenId } : {}) },
        "authentication refused",
      );
    }
    return outcome;
  };
  return async (headers) => {
    const header = headers.get("authorization");
    const token = bearerToken(header);
    if (!token) {
      return refused(
        { ok: false, status: 401, message: "Missing bearer token: send Authorization: Bearer <APIToken>" },
        missingTokenReason(header),
      );
    }
    const key = cache ? hashToken(token, "base64") : "";
    const cached = cache?.get(key);
    // A token with an expiry is remembered only until then: expiring changes no row, so no notification
    // would announce it.
    if (cached && Date.now() < cached.expiresAtMs) {
      return cached.outcome.ok ? cached.outcome : refused(cached.outcome, "user token on the partner endpoint");
    }
    const ticket = cache?.ticket();
    const resolved = await resolveToken(db, token);
    if (!resolved) {
      return refused(
        { ok: false, status: 401, message: "Invalid or revoked bearer token" },
        "unknown, revoked or expired token",
      );
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
    cache?.remember(key, { outcome, expiresAtMs }, ticket);
    return refused(outcome, "user token on the partner endpoint", resolved.id);
  };
}
