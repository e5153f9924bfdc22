-- 0003_list_ended_tasks_by_index: ListTasks' keyset index holds ended tasks only, so the status updates of
-- a running task stay heap-only.
--
-- `tasks_list_idx (workspace_id, status_at, id)` held every task by its status timestamp, and a running
-- task's timestamp changes with every status update. A row update that changes an indexed column cannot be
-- heap-only: each of those updates wrote a new entry into every index of `tasks` (the fillfactor left room
-- on the page in vain), so the indexes grew with every status update (see docs/performance.md).
--
-- An ended task never changes again, so the keyset index now holds ended tasks by `final_status_at`, set
-- once, when a task ends. Running tasks (few at any time: the ones robots are working on) are found by a
-- partial index by workspace that no update of theirs touches, and ListTasks merges the two in SQL.
-- Nothing a running task's updates change (snapshot, state, last_seq, status_at, updated_at) is indexed
-- now; a task's row leaves the heap-only path twice in its life: when it ends and when its lease is renewed.

alter table tasks add column final_status_at timestamptz null;
update tasks set final_status_at = status_at where terminal;
alter table tasks add constraint tasks_final_status_at_check check ((final_status_at is not null) = terminal);

create or replace function tasks_set_status_at() returns trigger
language plpgsql as $$
begin
  new.status_at := tasks_status_at(new.snapshot);
  new.final_status_at := case when new.terminal then new.status_at end;
  return new;
end
$$;

drop trigger tasks_status_at_trigger on tasks;
create trigger tasks_status_at_trigger
  before insert or update of snapshot, terminal on tasks
  for each row execute function tasks_set_status_at();

drop index tasks_list_idx;
create index tasks_ended_list_idx on tasks (workspace_id, final_status_at, id) where terminal;
create index tasks_running_idx on tasks (workspace_id) where not terminal;
