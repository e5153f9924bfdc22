-- 0001_tasks: the A2A store's own tables: tasks (with the idempotency key) and their event log.
-- Applied by the migrator inside one transaction (so no BEGIN/COMMIT and no CREATE INDEX CONCURRENTLY
-- here). Objects are created unqualified, in the first schema of the connection's search_path.
-- `workspace_id` is the embedder's tenant key; nothing here knows what a workspace is. (The reference
-- server's own migrations add the foreign key to its `workspaces`.)

create table tasks (
  id uuid primary key,
  workspace_id uuid not null,
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
  -- The snapshot's status.timestamp, kept by a trigger (below) for ListTasks' keyset order.
  status_at timestamptz not null,
  -- Race-free idempotency across server instances: of concurrent starts with one key, one insert wins.
  unique (workspace_id, message_id)
)
-- Room on every page for the new version of a row: a running task's row is rewritten with every group
-- commit that carries one of its events, and with free space on the page PostgreSQL can write the new
-- version beside the old one instead of adding an entry to every index (a heap-only tuple update).
with (fillfactor = 70);
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

-- ListTasks pages through a workspace's tasks, newest status first, by keyset. `status_at` is kept by a
-- trigger so every writer of `snapshot` (task start, group commit, single appends) keeps it without
-- knowing about it. The index serves the order (status_at desc, id desc) and the cursor
-- `(status_at, id) < ($at, $id)`, so a page deep in the list costs what the first page does. The price:
-- a status change touches this index, so updates of `tasks` rows are not heap-only (see
-- docs/performance.md).

-- Only timestamps our own writers produce (ISO-8601 with Z or an offset) are cast; anything else falls
-- back to the time of the write instead of failing it.
create function tasks_status_at(snapshot jsonb) returns timestamptz
language sql stable as $$
  select case
    when snapshot #>> '{status,timestamp}' ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?(Z|[+-]\d\d:\d\d)$'
      then (snapshot #>> '{status,timestamp}')::timestamptz
    else now()
  end
$$;

create function tasks_set_status_at() returns trigger
language plpgsql as $$
begin
  new.status_at := tasks_status_at(new.snapshot);
  return new;
end
$$;

create trigger tasks_status_at_trigger
  before insert or update of snapshot on tasks
  for each row execute function tasks_set_status_at();

create index tasks_list_idx on tasks (workspace_id, status_at, id);
