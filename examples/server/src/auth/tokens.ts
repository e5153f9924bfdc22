import { hash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Queryable } from "@a2a-partner/postgres-store";

export type TokenKind = "partner" | "user";

const PREFIX: Record<TokenKind, string> = { partner: "a2a_p_", user: "a2a_u_" };

/** A fresh opaque token; only its SHA-256 is ever stored. */
export function generateToken(kind: TokenKind): string {
  return PREFIX[kind] + randomBytes(32).toString("base64url");
}

// One-shot `crypto.hash`: a sixth of the CPU of createHash().update().digest(), on every request.
export function hashToken(token: string): Buffer;
export function hashToken(token: string, encoding: "base64"): string;
export function hashToken(token: string, encoding: "buffer" | "base64" = "buffer"): Buffer | string {
  return hash("sha256", token, encoding);
}

export interface ResolvedToken {
  id: string;
  kind: TokenKind;
  workspaceId: string | null;
  userId: string | null;
  /** When the token stops being accepted; null: never. A cache of resolved tokens must not outlive it. */
  expiresAt: Date | null;
}

interface TokenRow {
  id: string;
  token_hash: Buffer | Uint8Array;
  kind: TokenKind;
  workspace_id: string | null;
  user_id: string | null;
  expires_at: Date | null;
}

/**
 * The live token with this value, if any: not revoked and not expired (an expired token is refused like a
 * revoked one). Looked up by hash, then the hashes are compared in constant time, so the comparison leaks
 * nothing about how much of a guess was right.
 */
export async function resolveToken(db: Queryable, token: string): Promise<ResolvedToken | undefined> {
  if (token.length === 0 || token.length > 512) return undefined;
  const hash = hashToken(token);
  const { rows } = await db.query<TokenRow>(
    `select id, token_hash, kind, workspace_id, user_id, expires_at from api_tokens
      where token_hash = $1 and revoked_at is null and (expires_at is null or expires_at > now())`,
    [hash],
  );
  const row = rows[0];
  if (!row) return undefined;
  const stored = Buffer.from(row.token_hash);
  if (stored.length !== hash.length || !timingSafeEqual(stored, hash)) return undefined;
  return {
    id: row.id,
    kind: row.kind,
    workspaceId: row.workspace_id,
    userId: row.user_id,
    expiresAt: row.expires_at,
  };
}

export type NewToken = ({ kind: "partner"; workspaceId: string } | { kind: "user"; userId: string }) & {
  label?: string;
  /** The token is refused (401) from this many seconds after its creation on; absent: it never expires. */
  expiresInSeconds?: number;
};

/** A token as issued: its value (shown this once, never stored), its id (to list and revoke it) and its expiry. */
export interface IssuedToken {
  token: string;
  id: string;
  expiresAt: string | null;
}

/** Stores a new token for a workspace (partner) or a user (user session). */
export async function issueToken(db: Queryable, input: NewToken): Promise<IssuedToken> {
  const token = generateToken(input.kind);
  const { rows } = await db.query<{ id: string; expires_at: Date | null }>(
    `insert into api_tokens (token_hash, kind, workspace_id, user_id, label, expires_at)
     values ($1, $2, $3, $4, $5, now() + make_interval(secs => $6::double precision))
     returning id, expires_at`,
    [
      hashToken(token),
      input.kind,
      input.kind === "partner" ? input.workspaceId : null,
      input.kind === "user" ? input.userId : null,
      input.label ?? null,
      input.expiresInSeconds ?? null,
    ],
  );
  const row = rows[0] as { id: string; expires_at: Date | null };
  return { token, id: row.id, expiresAt: row.expires_at ? row.expires_at.toISOString() : null };
}

/** Stores a new token and returns its value once. */
export async function createToken(db: Queryable, input: NewToken): Promise<string> {
  return (await issueToken(db, input)).token;
}

/** The token in an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return match?.[1];
}
