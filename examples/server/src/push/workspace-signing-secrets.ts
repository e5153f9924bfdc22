import { type CacheInvalidation, InvalidatedCache, type Queryable, sharedLoads } from "@a2a-partner/postgres-store";
import { currentSigningSecret, signingSecretsOf } from "./signing-secrets.ts";

/**
 * How long a workspace's secrets are answered from memory at most. A rotation reaches every instance
 * with its commit (the table's change is announced, as for tokens); this bounds the delay should that
 * announcement ever be missed unnoticed, so a rotation is visible everywhere within 5 s at worst.
 */
export const SIGNING_SECRETS_MAX_AGE_MS = 5_000;
const CACHE_SIZE = 10_000;

interface Remembered {
  secrets: readonly string[];
  expiresAtMs: number;
}

/**
 * `A2APushOptions.signingSecrets` for the reference server: the workspace's secrets that sign now, the
 * current one first, so a delivery costs no query. A workspace that has none gets one at its first
 * delivery (every notification is signed; `pnpm cli push-secret` prints it). A retiring secret is
 * forgotten at its `retires_at` (nothing announces that moment). Concurrent lookups share one query.
 */
export function workspaceSigningSecrets(
  db: Queryable,
  invalidation?: CacheInvalidation,
  options: { maxAgeMs?: number; now?: () => number } = {},
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
