-- 0001_reference_server: the reference server's domain (tenancy, tokens, Environments, robots), run after
-- postgres-store's migrations (tasks, task_events) and metrics-core's (raw records, rollups). It binds
-- their tables to its `workspaces`: those packages know only a workspace id.
-- Applied by postgres-store's migrator inside one transaction. Objects are created unqualified, in the
-- first schema of the connection's search_path.

-- Tenancy ------------------------------------------------------------------------------------------

create table workspaces (
  id uuid primary key default gen_random_uuid(),
  slug text unique not null,
  name text not null,
  visibility text not null check (visibility in ('private', 'public')),
  created_at timestamptz not null default now()
);

create table users (
  id uuid primary key default gen_random_uuid(),
  email text unique not null,
  name text,
  created_at timestamptz not null default now()
);

create table memberships (
  workspace_id uuid not null references workspaces on delete cascade,
  user_id uuid not null references users on delete cascade,
  role text not null default 'member',
  status text not null check (status in ('active', 'inactive', 'invited')),
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
-- "Which workspaces can this user read?" starts from the user.
create index memberships_user_idx on memberships (user_id);

create table workspace_acl (
  workspace_id uuid not null references workspaces on delete cascade,
  user_id uuid not null references users on delete cascade,
  role text not null,
  created_at timestamptz not null default now(),
  primary key (workspace_id, user_id)
);
create index workspace_acl_user_idx on workspace_acl (user_id);

-- Only the SHA-256 of a token is stored; the token itself is shown once, at creation.
create table api_tokens (
  id uuid primary key default gen_random_uuid(),
  token_hash bytea unique not null check (octet_length(token_hash) = 32),
  kind text not null check (kind in ('partner', 'user')),
  workspace_id uuid null references workspaces on delete cascade,
  user_id uuid null references users on delete cascade,
  label text,
  created_at timestamptz not null default now(),
  revoked_at timestamptz null,
  -- Optional expiry: a token whose expires_at has passed is refused like a revoked one; null never
  -- expires. Checked at lookup time against now(): no statement runs when a token expires, so nothing
  -- announces it, and a cache of resolved tokens must itself forget a token at its expires_at.
  expires_at timestamptz null,
  -- A partner token acts for one workspace; a user token acts for one user.
  check (kind <> 'partner' or workspace_id is not null),
  check (kind <> 'user' or user_id is not null)
);

-- Stores and robots ----------------------------------------------------------------------------------

-- An Environment is what a partner's params.metadata.storeId names, within its workspace.
create table environments (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces on delete cascade,
  store_id text not null,
  name text not null,
  created_at timestamptz not null default now(),
  unique (workspace_id, store_id)
);

create table robots (
  id uuid primary key default gen_random_uuid(),
  environment_id uuid not null references environments on delete cascade,
  name text not null,
  kind text not null default 'mobile-manipulator',
  created_at timestamptz not null default now()
);
create index robots_environment_idx on robots (environment_id);

-- The other packages' tables, bound to this domain ----------------------------------------------------
-- Constraint names are the ones an inline `references` gives, so every database has one schema.

alter table tasks add constraint tasks_workspace_id_fkey
  foreign key (workspace_id) references workspaces on delete cascade;

alter table workflows add constraint workflows_workspace_id_fkey
  foreign key (workspace_id) references workspaces;
-- A workflow is named once per workspace: the robot fleet finds or creates it by name.
create unique index workflows_workspace_name_idx on workflows (workspace_id, name);

-- Cache invalidation ---------------------------------------------------------------------------------
-- Every change to a table that servers cache in memory is announced. A statement that changes api_tokens,
-- environments, robots or workflows (any path: the CLI, the control socket, psql, a migration) NOTIFYs
-- 'a2a_cache_changes' with the table's name when it commits, and every instance drops what it cached
-- from that table. Revoking a token therefore reaches every instance's token cache with the commit that
-- revoked it.

create function a2a_announce_cache_change() returns trigger
language plpgsql as $$
begin
  perform pg_notify('a2a_cache_changes', tg_table_name);
  return null;
end;
$$;

create trigger api_tokens_cache_change after insert or update or delete or truncate on api_tokens
  for each statement execute function a2a_announce_cache_change();
create trigger environments_cache_change after insert or update or delete or truncate on environments
  for each statement execute function a2a_announce_cache_change();
create trigger robots_cache_change after insert or update or delete or truncate on robots
  for each statement execute function a2a_announce_cache_change();
create trigger workflows_cache_change after insert or update or delete or truncate on workflows
  for each statement execute function a2a_announce_cache_change();
