import { type CacheInvalidation, InvalidatedCache } from "../cache/cache-invalidation.js";
import { sharedLoads } from "../cache/recent-misses.js";
import type { Queryable } from "../database.js";
import { currentSigningSecret, signingSecretsOf } from "./signing-secrets.js";

/**
 * How long a workspace's secrets are answered from memory at most. A rotation reaches every instance
 * with its commit (the table's trigger announces the change on the `CacheInvalidation` channel); this
 * bounds the delay should that announcement ever be missed unnoticed, so a rotation is visible
 * everywhere within 5 s at worst.
 */
export const SIGNING_SECRETS_MAX_AGE_MS = 5_000;
const CACHE_SIZE = 10_000;

/** Options of `workspaceSigningSecrets`. */
export interface WorkspaceSigningSecretsOptions {
  /** How long an answer is served from memory at most. Default `SIGNING_SECRETS_MAX_AGE_MS` (5 s). */
  maxAgeMs?: number;
  /** The clock, in ms since the epoch. Default `Date.now`. */
  now?: () => number;
}

interface Remembered {
  secrets: readonly string[];
  expiresAtMs: number;
}

/**
 * a2a-core's `A2APushOptions.signingSecrets` over `push_signing_secrets`: the workspace's secrets that
 * sign now, the current one first. A workspace that has none gets one at its first delivery (every
 * notification is signed; show it to its owner with `currentSigningSecret`). With `invalidation`, answers
 * come from memory until the table's change is announced, `maxAgeMs` passes or a retiring secret reaches
 * its `retires_at` (nothing announces that moment), so a delivery costs no query; without it, every call
 * reads the table. Concurrent lookups share one query. The answers are secrets: never log them.
 */
export function workspaceSigningSecrets(
  db: Queryable,
  invalidation?: CacheInvalidation,
  options: WorkspaceSigningSecretsOptions = {},
): (workspaceId: string) => Promise<readonly string[]> {
  const maxAgeMs = options.maxAgeMs ?? SIGNING_SECRETS_MAX_AGE_MS;
  const now = options.now ?? Date.now;
  const cache = invalidation
    ? new InvalidatedCache<Remembered>(invalidation, ["push_signing_secrets"], CACHE_SIZE)
    : undefined;
  const shared = sharedLoads<Remembered>();

  async function lookUp(workspaceId: string): Promise<Remembered> {
    // Taken before the query: an answer that may predate a rotation is not remembered.
    const ticket = cache?.ticket();
    let stored = await signingSecretsOf(db, workspaceId);
    if (stored.length === 0) {
      await currentSigningSecret(db, workspaceId);
      stored = await signingSecretsOf(db, workspaceId);
    }
    const retiring = stored.flatMap(({ retiresAt }) => (retiresAt ? [retiresAt.getTime()] : []));
    const remembered = {
      secrets: stored.map(({ secret }) => secret),
      expiresAtMs: Math.min(now() + maxAgeMs, ...retiring),
    };
    cache?.remember(workspaceId, remembered, ticket);
    return remembered;
  }

  return async (workspaceId) => {
    const cached = cache?.get(workspaceId);
    if (cached && now() < cached.expiresAtMs) return cached.secrets;
    return (await shared(workspaceId, () => lookUp(workspaceId))).secrets;
  };
}
