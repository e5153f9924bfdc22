-- 0008_push_notifications: A2A push configs, and the durable queue of their deliveries.
--
-- A delivery exists exactly when its event does: every writer of `task_events` (the group commit, a
-- single append, a task start with inline configs) inserts one delivery per config of the task in the same
-- statement or transaction as the event. Dispatchers on every instance claim them (`FOR UPDATE SKIP
-- LOCKED`, a lease in `claimed_until`), delete them once the receiver answered 2xx, and keep them, marked
-- `given_up_at`, past the retry horizon. Deleting a task deletes its configs, and a config its deliveries.

-- The ids of the task's configs, in the order they were created; null (or absent) when it has none. Kept
-- on the task row, under that row's lock, by every writer of `push_configs`, so that the writers of events
-- read them from the row they update anyway:
-- * exact: a config stored while a group commit waited for the task row is seen by that commit (the
--   update re-reads the row it waited for, and so its new list; a join with `push_configs` would read that
--   table as it was when the statement began, and the event would commit after the config without a
--   delivery);
-- * free when a task has none: no join with another table on the hot path, an unnest of a null.
-- Not indexed, so a running task's updates stay heap-only (migrations 0003-0004).
alter table tasks add column push_config_ids text[] null;

create table push_configs (
  task_id uuid not null references tasks on delete cascade,
  -- The client's id, or the task's id when it gave none (unique within the task only).
  id text not null,
  url text not null,
  token text null,
  -- `{ "schemes": [...], "credentials": "..." }`
  authentication jsonb null,
  -- The protocol version the config was made in ('0.3', '1.0'): its receiver gets payloads in that shape.
  version text not null,
  created_at timestamptz not null,
  primary key (task_id, id)
);

create table push_deliveries (
  task_id uuid not null,
  config_id text not null,
  -- The event (`task_events (task_id, seq)`); it lives as long as its task, and so as this row.
  seq integer not null,
  -- The database's clock when the event's statement ran: lag and the give-up horizon count from here.
  durable_at timestamptz not null default now(),
  -- Claimable from then on (a failed attempt moves it to its retry time).
  due_at timestamptz not null default now(),
  attempts integer not null default 0,
  -- The dispatcher holding it and until when; an expired claim is taken again by any dispatcher.
  claimed_by text null,
  claimed_until timestamptz null,
  -- Past the horizon: kept for the record, never tried again, and no longer holds up its config's next.
  given_up_at timestamptz null,
  last_error text null,
  primary key (task_id, config_id, seq),
  foreign key (task_id, config_id) references push_configs (task_id, id) on delete cascade
)
-- A delivery row is claimed (updated) once or a few times in its short life: room on the page keeps those
-- updates heap-only (no index holds what a claim changes).
with (fillfactor = 80);

-- The claim's scan: pending deliveries, earliest due first. Each config's oldest pending one is found
-- through the primary key (an older pending delivery of the same config holds the later ones back).
create index push_deliveries_due_idx on push_deliveries (due_at) where given_up_at is null;

alter table push_configs alter column authentication set statistics 0;
