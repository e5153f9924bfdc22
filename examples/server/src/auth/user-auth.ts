import { type CacheInvalidation, isUuid, type Queryable, type ReplicaFence } from "@a2a-partner/postgres-store";
import { missingTokenReason, type RefusalReason } from "./refusal-reason.ts";
import { bearerToken, hashToken, type ResolvedToken, resolveToken } from "./tokens.ts";
import { type UnknownTokenOptions, unknownTokens } from "./unknown-tokens.ts";

/**
 * Who may call a user-facing REST endpoint (docs/contract.md, Authentication): a live `a2a_u_` user
 * session token. Missing, unknown or revoked → 401; a partner token (the wrong kind of credential) → 403.
 */
export type UserAuthResult =
  | {
      ok: true;
      userId: string;
      /** The credential's id: the key of per-caller limits. */
      tokenId: string;
    }
  | {
      ok: false;
      status: 401 | 403;
      detail: string;
      /** The `WWW-Authenticate` challenge to send (RFC 6750 §3). */
      challenge: string;
      /** For the log: why, in a fixed phrase (never the credential). */
      reason: RefusalReason;
    };

export interface UserAuthOptions extends UnknownTokenOptions {
  /** With a read replica: live tokens are looked up there when it shows every announced access change. */
  accessFence?: ReplicaFence;
}

/**
 * The user endpoints' rule above, with the A2A endpoint's memory of unknown tokens (unknown-tokens.ts):
 * with `invalidation`, a token the database did not know is refused from memory for a short while, so a
 * flood repeating made-up tokens costs one lookup each, not one per request; any change to api_tokens
 * forgets them. With `accessFence`, a token the replica finds live is accepted without the primary; one it
 * does not find (unknown, or created a moment ago) is looked up on the primary.
 */
export function userAuthenticator(
  db: Queryable,
  invalidation?: CacheInvalidation,
  options: UserAuthOptions = {},
): (authorization: string | undefined) => Promise<UserAuthResult> {
  const unknown = unknownTokens(invalidation, options);
  const fence = options.accessFence;
  return async (authorization) => {
    const token = bearerToken(authorization);
    if (!token) {
      return refused(
        401,
        "Missing bearer token: send Authorization: Bearer <user session token>",
        "Bearer",
        missingTokenReason(authorization),
      );
    }
    const key = unknown ? hashToken(token, "base64") : "";
    if (unknown?.has(key)) return UNKNOWN_TOKEN;
    const ticket = unknown?.ticket();
    const resolved = (await fence?.read((replica) => resolveToken(replica, token))) ?? (await resolveToken(db, token));
    if (!resolved) {
      unknown?.remember(key, ticket);
      return UNKNOWN_TOKEN;
    }
    return known(resolved);
  };
}

const UNKNOWN_TOKEN = refused(
  401,
  "Invalid or revoked bearer token",
  'Bearer error="invalid_token"',
  "unknown, revoked or expired token",
);

function known(resolved: ResolvedToken): UserAuthResult {
  if (resolved.kind !== "user" || !resolved.userId) {
    return refused(
      403,
      "A partner token is not accepted here: use a user session token",
      'Bearer error="insufficient_scope"',
      "partner token on a user endpoint",
    );
  }
  return { ok: true, userId: resolved.userId, tokenId: resolved.id };
}

/**
 * How a `{workspace}` path segment is looked up: as a UUID when it parses as one, else as a slug. A
 * segment that merely looks like a UUID (a wrong digit, a wrong length) is a slug.
 */
export function parseWorkspaceSegment(segment: string): { uuid: string | null; slug: string } {
  return { uuid: isUuid(segment) ? segment.toLowerCase() : null, slug: segment };
}

export interface ReadableWorkspace {
  id: string;
  slug: string;
}

/**
 * The workspace a path segment names, if this user may read it: active membership, any ACL role, or
 * public visibility. Resolution and the access check are one statement. A segment that parses as a UUID
 * names the workspace with that id, or, when there is none, the workspace whose slug it is; resolution
 * never depends on access, so a readable workspace can't be reached through another one's name.
 * Undefined means "unknown or unreadable": callers answer both the same way (404).
 */
export async function findReadableWorkspace(
  db: Queryable,
  userId: string,
  segment: string,
): Promise<ReadableWorkspace | undefined> {
  // PostgreSQL text cannot hold NUL; such a segment names nothing (and must not reach the driver).
  if (segment.length === 0 || segment.includes("\u0000")) return undefined;
  const { uuid, slug } = parseWorkspaceSegment(segment);
  const { rows } = await db.query<{ id: string; slug: string; readable: boolean }>(
    `select w.id, w.slug,
            (w.visibility = 'public'
             or exists (select 1 from memberships m
                        where m.workspace_id = w.id and m.user_id = $3 and m.status = 'active')
             or exists (select 1 from workspace_acl a where a.workspace_id = w.id and a.user_id = $3)) as readable
     from workspaces w
     where w.id = $1::uuid or w.slug = $2
     order by (w.id = $1::uuid) is true desc
     limit 1`,
    [uuid, slug, userId],
  );
  const row = rows[0];
  return row?.readable ? { id: row.id, slug: row.slug } : undefined;
}

function refused(status: 401 | 403, detail: string, challenge: string, reason: RefusalReason): UserAuthResult {
  return { ok: false, status, detail, challenge, reason };
}
