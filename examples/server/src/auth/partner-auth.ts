import type { Authenticate, AuthOutcome } from "@a2a-partner/a2a-core";
import { type CacheInvalidation, InvalidatedCache, type Queryable, sharedLoads } from "@a2a-partner/postgres-store";
import type { Logger } from "pino";
import { RefusalLog } from "./refusal-log.ts";
import { missingTokenReason, type RefusalReason } from "./refusal-reason.ts";
import { bearerToken, hashToken, resolveToken } from "./tokens.ts";
import { type UnknownTokenOptions, unknownTokens } from "./unknown-tokens.ts";

/** Live partner tokens remembered per process (by hash), emptied whenever api_tokens changes. */
const TOKEN_CACHE_SIZE = 10_000;
/** How long a resolved token is answered from memory at most, whatever the notifications say. */
const MAX_AGE_MS = 60_000;

export interface PartnerAuthOptions extends UnknownTokenOptions {
  /** Where refusals are logged (info, at most once a minute per cause: refusal-log.ts), never the token. */
  logger?: Logger;
  /** Replaces the refusal log made from `logger` (tests: another interval). */
  refusalLog?: RefusalLog;
}

const UNKNOWN: AuthOutcome = { ok: false, status: 401, message: "Invalid or revoked bearer token" };
const UNKNOWN_REASON: RefusalReason = "unknown, revoked or expired token";

interface Remembered {
  outcome: AuthOutcome;
  expiresAtMs: number;
  /** Why it is refused (for the log), when it is. */
  reason?: RefusalReason;
  tokenId?: string;
}

/**
 * The A2A endpoint's rule: a live partner token → its workspace; a user token → 403; else 401. With
 * `invalidation`, what the database answered is remembered in memory, and forgotten by every instance as
 * soon as any statement changes api_tokens (a revocation, a new token): a resolved token for up to a
 * minute, an unknown one for `unknownTokenTtlMs` (unknown-tokens.ts). Concurrent lookups of one token
 * share a single query.
 */
export function partnerAuthenticator(
  db: Queryable,
  invalidation?: CacheInvalidation,
  options: PartnerAuthOptions = {},
): Authenticate {
  const refusals = options.refusalLog ?? new RefusalLog(options.logger);
  const known = invalidation
    ? new InvalidatedCache<Remembered>(invalidation, ["api_tokens"], TOKEN_CACHE_SIZE)
    : undefined;
  const unknown = unknownTokens(invalidation, options);
  const shared = sharedLoads<Remembered>();

  // A partner's misconfigured token shows up in the log at once with its reason; a flood, as a count.
  function answer({ outcome, reason, tokenId }: Remembered): AuthOutcome {
    if (!outcome.ok && reason) {
      refusals.refused({ endpoint: "a2a", status: outcome.status, reason, ...(tokenId ? { tokenId } : {}) });
    }
    return outcome;
  }

  async function lookUp(token: string, key: string): Promise<Remembered> {
    // Taken before the query: an answer that may predate a change to api_tokens is not remembered.
    const ticket = known?.ticket();
    const unknownTicket = unknown?.ticket();
    const resolved = await resolveToken(db, token);
    if (!resolved) {
      unknown?.remember(key, unknownTicket);
      return { outcome: UNKNOWN, expiresAtMs: 0, reason: UNKNOWN_REASON };
    }
    const isPartner = resolved.kind === "partner" && resolved.workspaceId;
    const outcome: AuthOutcome = isPartner
      ? { ok: true, workspaceId: resolved.workspaceId as string, principal: `token:${resolved.id}` }
      : { ok: false, status: 403, message: "A user session token is not accepted here: use a workspace partner token" };
    // Also at most a minute: a backstop should a change notification ever fail to arrive unnoticed.
    const expiresAtMs = Math.min(resolved.expiresAt?.getTime() ?? Number.POSITIVE_INFINITY, Date.now() + MAX_AGE_MS);
    const remembered: Remembered = {
      outcome,
      expiresAtMs,
      ...(isPartner ? {} : { reason: "user token on the partner endpoint" as const, tokenId: resolved.id }),
    };
    known?.remember(key, remembered, ticket);
    return remembered;
  }

  return async (headers) => {
    const header = headers.get("authorization");
    const token = bearerToken(header);
    if (!token) {
      return answer({
        outcome: { ok: false, status: 401, message: "Missing bearer token: send Authorization: Bearer <APIToken>" },
        expiresAtMs: 0,
        reason: missingTokenReason(header),
      });
    }
    if (!known) return answer(await lookUp(token, ""));
    const key = hashToken(token, "base64");
    // A token with an expiry is remembered only until then: expiring changes no row, so no notification
    // would announce it.
    if (unknown?.has(key)) return answer({ outcome: UNKNOWN, expiresAtMs: 0, reason: UNKNOWN_REASON });
    const cached = known.get(key);
    if (cached && Date.now() < cached.expiresAtMs) return answer(cached);
    return answer(await shared(key, () => lookUp(token, key)));
  };
}
