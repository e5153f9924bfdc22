import type { Database } from "@a2a-partner/postgres-store";
import { createToken, hashToken } from "./auth/tokens.ts";

/** A request to `token create`, as the CLI and the control socket receive it. */
export interface TokenRequest {
  workspace: string;
  kind: "partner" | "user";
  user?: string;
}

/** A problem with what the operator asked for (not a fault): the CLI exits 2 with the message. */
export class AdminUsageError extends Error {}

/**
 * Creates a token for a workspace. A user token acts for the user (created if new), who is also made an
 * active member of the workspace so the token can read its metrics at once.
 */
export async function createWorkspaceToken(db: Database, request: TokenRequest): Promise<string> {
  if (request.kind !== "partner" && request.kind !== "user")
    throw new AdminUsageError("--kind must be partner or user");
  if (request.kind === "user" && !request.user) throw new AdminUsageError("a user token needs --user <email>");
  const workspace = await db.query<{ id: string }>("select id from workspaces where slug = $1", [request.workspace]);
  const workspaceId = workspace.rows[0]?.id;
  if (!workspaceId)
    throw new AdminUsageError(`no workspace with slug "${request.workspace}" (run \`pnpm cli seed\` first?)`);
  if (request.kind === "partner") return createToken(db, { kind: "partner", workspaceId, label: "cli" });
  const userId = await db.transaction(async (tx) => {
    const user = await tx.query<{ id: string }>(
      "insert into users (email) values ($1) on conflict (email) do update set email = excluded.email returning id",
      [request.user],
    );
    const id = user.rows[0]?.id as string;
    await tx.query(
      `insert into memberships (workspace_id, user_id, role, status) values ($1, $2, 'member', 'active')
       on conflict (workspace_id, user_id) do update set status = 'active'`,
      [workspaceId, id],
    );
    return id;
  });
  return createToken(db, { kind: "user", userId, label: "cli" });
}

/** Revokes a live token; every request with it is refused (401) from then on. */
export async function revokeToken(db: Database, token: string): Promise<string> {
  const { rowCount } = await db.query(
    "update api_tokens set revoked_at = now() where token_hash = $1 and revoked_at is null",
    [hashToken(token)],
  );
  if (rowCount === 0) throw new AdminUsageError("no live token with that value");
  return "revoked";
}
