-- Tables of an embedder's own, for the store suite: a second migration source after the store's, and
-- rows for the group-commit writer and the query interface to write. Nothing in the store uses them.
create table fixture_notes (
  slug text primary key,
  name text not null
);

create table fixture_runs (
  id uuid primary key,
  workspace_id uuid not null,
  task_id uuid null references tasks,
  status text not null,
  started_at timestamptz not null,
  finished_at timestamptz null
);

create table fixture_run_steps (
  id uuid primary key default gen_random_uuid(),
  run_id uuid not null references fixture_runs,
  step text not null,
  status text not null
);

create table fixture_readings (
  id bigint generated always as identity primary key,
  workspace_id uuid not null,
  kind text not null,
  payload jsonb not null default '{}',
  occurred_at timestamptz not null
);
