/**
 * The table the push signing secret functions read and write (`signingSecretsOf`, `currentSigningSecret`,
 * `rotateSigningSecret`, `retireOldSigningSecrets`, `workspaceSigningSecrets`): apply it in a migration of
 * yours. It is yours, not a migration of this package, because its `workspace_id` belongs to your
 * workspaces: add the foreign key to your workspaces table, and a statement trigger that NOTIFYs your
 * cache channel with the table's name so that a rotation reaches every instance's cache with its commit
 * (see the README, "Push signing secrets").
 *
 * A secret (`whsec_` + base64 of 32 random bytes) signs while `retires_at` is null or still ahead; exactly
 * one per workspace has none, the current one. It is stored as it is: signing needs it (an HMAC key).
 */
export const PUSH_SIGNING_SECRETS_TABLE_SQL = `create table push_signing_secrets (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  secret text not null check (secret ~ '^whsec_[A-Za-z0-9+/]{43}=$'),
  created_at timestamptz not null default now(),
  retires_at timestamptz null
);
-- One current secret per workspace: two concurrent "create one if none" cannot both create one.
create unique index push_signing_secrets_current_idx on push_signing_secrets (workspace_id) where retires_at is null;
-- The lookup of a workspace's secrets, newest first.
create index push_signing_secrets_workspace_idx on push_signing_secrets (workspace_id, created_at desc);
`;
