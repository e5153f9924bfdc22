import { randomBytes } from "node:crypto";
import type { Database, Queryable } from "../database.js";

// A workspace's Standard Webhooks signing secrets in `push_signing_secrets` (your migration applies
// PUSH_SIGNING_SECRETS_TABLE_SQL): the current one, and during a rotation's grace the one it replaced.
// Every function here returns secret values: callers show them to the operator or sign with them, and
// never log them.

/** A new secret: `whsec_` and the base64 of 32 random bytes (the Standard Webhooks format). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

/** A signing secret of a workspace, as stored. The value is a secret: never log it. */
export interface StoredSigningSecret {
  /** The secret itself (`whsec_…`). */
  secret: string;
  /** When it was made. */
  createdAt: Date;
  /** When it stops signing; null for the current secret. */
  retiresAt: Date | null;
}

interface Row {
  secret: string;
  created_at: Date;
  retires_at: Date | null;
}

const toStored = (row: Row): StoredSigningSecret => ({
  secret: row.secret,
  createdAt: row.created_at,
  retiresAt: row.retires_at,
});

/**
 * The secrets that sign the workspace's notifications now: not retired, the current one first, then the
 * retiring ones newest first.
 */
export async function signingSecretsOf(db: Queryable, workspaceId: string): Promise<StoredSigningSecret[]> {
  const { rows } = await db.query<Row>(
    `select secret, created_at, retires_at from push_signing_secrets
      where workspace_id = $1 and (retires_at is null or retires_at > now())
      order by retires_at is null desc, created_at desc, id`,
    [workspaceId],
  );
  return rows.map(toStored);
}

/**
 * The workspace's current secret, created now if it has none (`created: true`). Safe when several callers
 * ask at once: the unique index on the current secret lets one insert win, and the others read it.
 */
export async function currentSigningSecret(
  db: Queryable,
  workspaceId: string,
): Promise<StoredSigningSecret & { created: boolean }> {
  const inserted = await db.query<Row>(
    `insert into push_signing_secrets (workspace_id, secret) values ($1, $2)
     on conflict (workspace_id) where retires_at is null do nothing
     returning secret, created_at, retires_at`,
    [workspaceId, newSigningSecret()],
  );
  const row = inserted.rows[0];
  if (row) return { ...toStored(row), created: true };
  const { rows } = await db.query<Row>(
    "select secret, created_at, retires_at from push_signing_secrets where workspace_id = $1 and retires_at is null",
    [workspaceId],
  );
  const current = rows[0];
  if (!current) throw new Error("the workspace's current signing secret was not found after a conflicting insert");
  return { ...toStored(current), created: false };
}

/**
 * A new current secret; the one it replaces keeps signing for `graceSeconds` more (0: it stops now). One
 * transaction: no instance ever sees the workspace without a current secret, or with two.
 */
export async function rotateSigningSecret(
  db: Database,
  workspaceId: string,
  graceSeconds: number,
): Promise<StoredSigningSecret> {
  return db.transaction(async (tx) => {
    await tx.query(
      `update push_signing_secrets set retires_at = now() + make_interval(secs => $2)
        where workspace_id = $1 and retires_at is null`,
      [workspaceId, graceSeconds],
    );
    const { rows } = await tx.query<Row>(
      `insert into push_signing_secrets (workspace_id, secret) values ($1, $2)
       returning secret, created_at, retires_at`,
      [workspaceId, newSigningSecret()],
    );
    return toStored(rows[0] as Row);
  });
}

/**
 * Every replaced secret of the workspace stops signing now, whatever was left of its grace; the current
 * one is untouched. Answers how many were still signing.
 */
export async function retireOldSigningSecrets(db: Queryable, workspaceId: string): Promise<number> {
  const { rowCount } = await db.query(
    `update push_signing_secrets set retires_at = now()
      where workspace_id = $1 and retires_at is not null and retires_at > now()`,
    [workspaceId],
  );
  return rowCount ?? 0;
}
