import { durationOption, NotFoundError, UsageError } from "@a2a-partner/a2a-core/node-runtime";
import { type Database, isUuid } from "@a2a-partner/postgres-store";
import { type IssuedToken, issueToken } from "../auth/tokens.ts";
import { workspaceIdOf } from "./request-fields.ts";

/** A request to `token create`, as the CLI and the control socket receive it. */
export interface TokenRequest {
  workspace: string;
  kind: "partner" | "user";
  user?: string;
  /** `30d`, `12h` …: the token is refused from then on. Absent: it never expires. */
  expiresIn?: string;
  /** Make the user's inactive (or invited) membership active again; without it such a request is refused. */
  activate?: boolean;
}

/**
 * Creates a token for a workspace. A user token acts for the user (created if new); a new user becomes an
 * active member of the workspace so the token can read its metrics at once. An existing membership that
 * is not active stays as it is unless `activate` is set: someone deactivated it on purpose.
 */
export async function createWorkspaceToken(db: Database, request: TokenRequest): Promise<IssuedToken> {
  if (request.kind !== "partner" && request.kind !== "user") throw new UsageError("--kind must be partner or user");
  if (request.kind === "user" && !request.user) throw new UsageError("a user token needs --user <email>");
  const lifetime =
    request.expiresIn === undefined
      ? {}
      : { expiresInSeconds: durationOption(request.expiresIn, "--expires-in", "30d or 12h, up to ten years") };
  const workspaceId = await workspaceIdOf(db, request.workspace, SEED_HINT);
  if (request.kind === "partner") return issueToken(db, { kind: "partner", workspaceId, label: "cli", ...lifetime });
  return db.transaction(async (tx) => {
    const user = await tx.query<{ id: string }>(
      "insert into users (email) values ($1) on conflict (email) do update set email = excluded.email returning id",
      [request.user],
    );
    const userId = user.rows[0]?.id as string;
    const membership = await tx.query<{ status: string }>(
      `insert into memberships (workspace_id, user_id, role, status) values ($1, $2, 'member', 'active')
       on conflict (workspace_id, user_id) do update set status = memberships.status
       returning status`,
      [workspaceId, userId],
    );
    const status = membership.rows[0]?.status;
    if (status !== "active") {
      if (!request.activate) {
        throw new UsageError(
          `${request.user}'s membership of "${request.workspace}" is ${status}, so a token would not read its metrics; ` +
            "pass --activate to make it active again",
        );
      }
      await tx.query("update memberships set status = 'active' where workspace_id = $1 and user_id = $2", [
        workspaceId,
        userId,
      ]);
    }
    return issueToken(tx, { kind: "user", userId, label: "cli", ...lifetime });
  });
}

/** One row of `token list`: everything about a token except its value, which is never stored. */
export interface TokenListing {
  id: string;
  kind: "partner" | "user";
  /** The workspace a partner token acts for; null for a user token (it acts for its user). */
  workspace: string | null;
  /** A user token's reach: the workspaces its user is an active member of (slugs, sorted); absent for a partner token. */
  workspaces?: string[];
  user: string | null;
  label: string | null;
  created: string;
  revoked: string | null;
  expires: string | null;
  /** The first 12 hex digits of the token's SHA-256: enough to recognise it, and to revoke it by. */
  hash: string;
}

/** A workspace a token command names that does not exist: mistyped, or the demo was not seeded yet. */
const SEED_HINT = "run `pnpm cli seed` first?";

/**
 * Every token, oldest first; with a workspace, the tokens that act in it: its partner tokens and the user
 * tokens of its active members.
 */
export async function listTokens(db: Database, filter: { workspace?: string } = {}): Promise<TokenListing[]> {
  // A mistyped slug is an error, not an empty list that looks like a workspace without tokens.
  if (filter.workspace !== undefined) await workspaceIdOf(db, filter.workspace, SEED_HINT);
  type Row = Omit<TokenListing, "workspaces" | "created" | "revoked" | "expires"> & {
    workspaces: string | null;
    created: Date;
    revoked: Date | null;
    expires: Date | null;
  };
  const { rows } = await db.query<Row>(
    `select t.id, t.kind, w.slug as workspace, u.email as user, t.label, t.created_at as created,
            t.revoked_at as revoked, t.expires_at as expires, left(encode(t.token_hash, 'hex'), 12) as hash,
            -- As JSON text: the same value from pg and PGlite, whatever their array parsing.
            (select coalesce(json_agg(mw.slug order by mw.slug), '[]'::json)::text
               from memberships m join workspaces mw on mw.id = m.workspace_id
              where m.user_id = t.user_id and m.status = 'active') as workspaces
       from api_tokens t
       left join workspaces w on w.id = t.workspace_id
       left join users u on u.id = t.user_id
      where $1::text is null
         or w.slug = $1
         or exists (select 1 from memberships m join workspaces mw on mw.id = m.workspace_id
                     where m.user_id = t.user_id and m.status = 'active' and mw.slug = $1)
      order by t.created_at, t.id`,
    [filter.workspace ?? null],
  );
  return rows.map(({ workspaces, ...row }) => ({
    ...row,
    ...(row.kind === "user" ? { workspaces: JSON.parse(workspaces ?? "[]") as string[] } : {}),
    created: row.created.toISOString(),
    revoked: row.revoked ? row.revoked.toISOString() : null,
    expires: row.expires ? row.expires.toISOString() : null,
  }));
}

/** What `token revoke` accepts besides a whole id: a prefix of an id (as git takes a hash's) or of the hash. */
const PREFIX = /^[0-9a-f][0-9a-f-]{7,63}$/i;

/**
 * Revokes a live token, named by its id, by a unique prefix (at least 8 characters) of its id, or by a
 * unique prefix of its SHA-256 (hex), as `token list` shows them; every request with it is refused (401)
 * from then on. A prefix that matches several live tokens is refused with the matches listed. Never by its
 * value: a secret on a command line lands in shell history and in `ps`.
 */
export async function revokeToken(db: Database, ref: string): Promise<{ revoked: string }> {
  const trimmed = ref.trim().toLowerCase();
  if (/^a2a_[pu]_/.test(ref.trim())) {
    throw new UsageError(
      "pass the token's id or hash prefix (see `token list`), not the token itself; to revoke by value, " +
        "pipe it in: `… | pnpm cli token revoke --stdin`",
    );
  }
  let id: string;
  if (isUuid(trimmed)) {
    id = trimmed;
  } else if (PREFIX.test(trimmed)) {
    const hex = trimmed.replaceAll("-", "");
    const { rows } = await db.query<{ id: string; kind: string; owner: string | null }>(
      `select t.id, t.kind, coalesce(w.slug, u.email) as owner
         from api_tokens t
         left join workspaces w on w.id = t.workspace_id
         left join users u on u.id = t.user_id
        where t.revoked_at is null
          and (left(t.id::text, $2) = $1 or ($3 <> '' and left(encode(t.token_hash, 'hex'), $4) = $3))
        order by t.created_at, t.id
        limit 11`,
      [trimmed, trimmed.length, hex === trimmed ? hex : "", hex.length],
    );
    if (rows.length > 1) {
      const shown = rows.slice(0, 10).map((row) => `  ${row.id} (${row.kind}, ${row.owner ?? "?"})`);
      throw new UsageError(
        `${rows.length > 10 ? "more than 10" : rows.length} live tokens match ${trimmed}; give more characters, ` +
          `or the whole id:\n${shown.join("\n")}`,
      );
    }
    id = rows[0]?.id ?? "00000000-0000-0000-0000-000000000000";
  } else if (trimmed.length >= 8) {
    // Long enough, but ids and hashes are hexadecimal: no token can match.
    throw new NotFoundError(
      `no live token whose id or hash starts with ${trimmed.slice(0, 64)} (ids and hashes are hexadecimal; see \`token list\`)`,
    );
  } else {
    throw new UsageError(
      "token revoke needs a token id (a UUID), or at least 8 characters of its id or its hash (see `token list`)",
    );
  }
  // Always this plain UPDATE of revoked_at, so whatever watches api_tokens (a cache-invalidation trigger)
  // sees every revocation, however the token was named.
  const { rowCount } = await db.query("update api_tokens set revoked_at = now() where id = $1 and revoked_at is null", [
    id,
  ]);
  if (rowCount === 0) {
    throw new NotFoundError(
      isUuid(trimmed) ? `no live token with id ${trimmed}` : `no live token whose id or hash starts with ${trimmed}`,
    );
  }
  return { revoked: id };
}
