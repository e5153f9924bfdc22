import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Queryable } from "@a2a-partner/postgres-store";

export type TokenKind = "partner" | "user";

const PREFIX: Record<TokenKind, string> = { partner: "a2a_p_", user: "a2a_u_" };

/** A fresh opaque token; only its SHA-256 is ever stored. */
export function generateToken(kind: TokenKind): string {
  return PREFIX[kind] + randomBytes(32).toString("base64url");
}

export function hashToken(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

export interface ResolvedToken {
  id: string;
  kind: TokenKind;
  workspaceId: string | null;
  userId: string | null;
}

interface TokenRow {
  id: string;
  token_hash: Buffer | Uint8Array;
  kind: TokenKind;
  workspace_id: string | null;
  user_id: string | null;
}

/**
 * The live (not revoked) token with this value, if any. Looked up by hash, then the hashes are compared
 * in constant time, so the comparison leaks nothing about how much of a guess was right.
 */
export async function resolveToken(db: Queryable, token: string): Promise<ResolvedToken | undefined> {
  if (token.length === 0 || token.length > 512) return undefined;
  const hash = hashToken(token);
  const { rows } = await db.query<TokenRow>(
    "select id, token_hash, kind, workspace_id, user_id from api_tokens where token_hash = $1 and revoked_at is null",
    [hash],
  );
  const row = rows[0];
  if (!row) return undefined;
  const stored = Buffer.from(row.token_hash);
  if (stored.length !== hash.length || !timingSafeEqual(stored, hash)) return undefined;
  return { id: row.id, kind: row.kind, workspaceId: row.workspace_id, userId: row.user_id };
}

/** Stores a new token for a workspace (partner) or a user (user session) and returns its value once. */
export async function createToken(
  db: Queryable,
  input: { kind: "partner"; workspaceId: string; label?: string } | { kind: "user"; userId: string; label?: string },
): Promise<string> {
  const token = generateToken(input.kind);
  await db.query(
    "insert into api_tokens (token_hash, kind, workspace_id, user_id, label) values ($1, $2, $3, $4, $5)",
    [
      hashToken(token),
      input.kind,
      input.kind === "partner" ? input.workspaceId : null,
      input.kind === "user" ? input.userId : null,
      input.label ?? null,
    ],
  );
  return token;
}

/** The token in an `Authorization: Bearer <token>` header, or undefined. */
export function bearerToken(header: string | null | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header);
  return match?.[1];
}
