-- 0003_push_signing_secrets: each workspace's Standard Webhooks signing secrets (`whsec_` + base64 of 32
-- random bytes), which sign every push notification its tasks send (`pnpm cli push-secret`).
-- A secret signs while `retires_at` is null or still ahead. Exactly one per workspace has no `retires_at`:
-- the current one. A rotation gives the current one a `retires_at` (now + grace) and adds a new current
-- one in the same transaction, so for the grace both sign and a receiver that knows either verifies.
-- The secret is stored as it is, not hashed: signing needs it (an HMAC key), and a receiver has a copy.
-- Rows that retired are kept (when each secret stopped signing is worth knowing) and cost nothing.

create table push_signing_secrets (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces on delete cascade,
  secret text not null check (secret ~ '^whsec_[A-Za-z0-9+/]{43}=$'),
  created_at timestamptz not null default now(),
  retires_at timestamptz null
);

-- One current secret per workspace: two concurrent "create one if none" cannot both create one.
create unique index push_signing_secrets_current_idx on push_signing_secrets (workspace_id) where retires_at is null;
-- The dispatchers' lookup: a workspace's secrets, newest first.
create index push_signing_secrets_workspace_idx on push_signing_secrets (workspace_id, created_at desc);

-- Servers cache a workspace's secrets; a rotation reaches every instance's cache with its commit
-- (0001's a2a_announce_cache_change).
create trigger push_signing_secrets_cache_change after insert or update or delete or truncate on push_signing_secrets
  for each statement execute function a2a_announce_cache_change();
