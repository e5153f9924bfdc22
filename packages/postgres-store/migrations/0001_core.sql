-- 0001_core: every table the reference server and the metrics need.
-- Applied by the migrator inside one transaction (so no BEGIN/COMMIT and no CREATE INDEX CONCURRENTLY
-- here). Objects are created unqualified, in the first schema of the connection's search_path.

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

-- Metrics raw tables ---------------------------------------------------------------------------------
-- Column names and types are a contract with the rollup triggers (0002) and the metrics queries.

create table workflows (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null references workspaces,
  name text not null,
  created_at timestamptz not null default now()
);
-- A workflow is named once per workspace: the robot fleet finds or creates it by name.
create unique index workflows_workspace_name_idx on workflows (workspace_id, name);

create table workflow_executions (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  workflow_id uuid not null references workflows,
  task_id uuid null,
  status text not null,
  started_at timestamptz not null,
  finished_at timestamptz null
);

create table workflow_node_executions (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  workflow_execution_id uuid not null references workflow_executions,
  workflow_id uuid not null references workflows,
  node_name text not null,
  status text not null,
  started_at timestamptz not null,
  finished_at timestamptz null
);
create index workflow_node_executions_execution_idx on workflow_node_executions (workflow_execution_id);

create table telemetry_events (
  id bigint generated always as identity primary key,
  workspace_id uuid not null,
  environment_id uuid null,
  robot_id uuid null,
  event_type text not null,
  payload jsonb not null default '{}',
  occurred_at timestamptz not null
);

create table alerts (
  id bigint generated always as identity primary key,
  workspace_id uuid not null,
  environment_id uuid null,
  robot_id uuid null,
  alert_type text not null,
  severity text not null default 'warning',
  message text not null default '',
  occurred_at timestamptz not null
);

-- Window scans of one workspace (the metrics' raw reads for partial days).
create index workflow_executions_workspace_started_idx on workflow_executions (workspace_id, started_at);
create index workflow_node_executions_workspace_started_idx on workflow_node_executions (workspace_id, started_at);
create index telemetry_events_workspace_occurred_idx on telemetry_events (workspace_id, occurred_at);
create index alerts_workspace_occurred_idx on alerts (workspace_id, occurred_at);

-- A2A tasks ------------------------------------------------------------------------------------------

create table tasks (
  id uuid primary key,
  workspace_id uuid not null references workspaces on delete cascade,
  context_id text not null,
  -- The idempotency key. NULLs are distinct, so tasks started without a messageId never collide.
  message_id text null,
  snapshot jsonb not null,
  state text not null,
  -- Set by the store from a2a-core's isTerminalState, so the list of terminal states lives in one place.
  terminal boolean not null default false,
  last_seq integer not null default 1 check (last_seq >= 1),
  lease_owner text null,
  lease_expires_at timestamptz null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- Race-free idempotency across server instances: of concurrent starts with one key, one insert wins.
  unique (workspace_id, message_id)
);
-- Serves listOrphaned: only live tasks are indexed, by when their lease runs out.
create index tasks_orphaned_idx on tasks (lease_expires_at) where not terminal;

create table task_events (
  task_id uuid not null references tasks on delete cascade,
  seq integer not null check (seq >= 1),
  event text not null check (event in ('task', 'update', 'finished')),
  result jsonb not null,
  created_at timestamptz not null,
  primary key (task_id, seq)
);
-- Belt and braces for the contract's "exactly one finished", whatever a writer does.
create unique index task_events_one_finished_idx on task_events (task_id) where event = 'finished';
