-- 0007_list_tasks: ListTasks pages through a workspace's tasks, newest status first, by keyset.
-- `status_at` is the snapshot's status.timestamp as a timestamptz, kept by a trigger so every writer of
-- `snapshot` (task start, group commit, single appends) keeps it without knowing about it. The index
-- serves the order (status_at desc, id desc) and the cursor `(status_at, id) < ($at, $id)`, so a page
-- deep in the list costs what the first page does. The price: a status change now touches this index,
-- so updates of `tasks` rows are no longer heap-only (see docs/performance.md).

alter table tasks add column status_at timestamptz;

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

update tasks set status_at = tasks_status_at(snapshot);
alter table tasks alter column status_at set not null;

create trigger tasks_status_at_trigger
  before insert or update of snapshot on tasks
  for each row execute function tasks_set_status_at();

create index tasks_list_idx on tasks (workspace_id, status_at, id);
