-- 0005_status_at_from_the_writer: the store writes `status_at` and `final_status_at` itself; the trigger
-- that derived them from the snapshot now runs only for a writer that leaves them alone.
--
-- The trigger ran for every insert of a task and every update of its snapshot: a PL/pgSQL call, the
-- snapshot's status timestamp read out of the jsonb, a regular expression and a cast, and the row formed
-- again. On PGlite that was ~30 us of a ~210 us task start, and ~5-13 us for each task row a group commit
-- updates. The store knows the snapshot it writes, so it sends the value the rule gives (the same format
-- check, the same cast in SQL; see `statusAtOf` in src/internal/rows.ts).
--
-- The trigger stays, guarded, for any other writer (an instance still running the previous release
-- during a rolling deploy, a fix in SQL): it runs on insert when `status_at` is left null, on update of
-- the snapshot or `terminal` when `status_at` is left as it was, and whenever `final_status_at` does not
-- follow from `status_at` and `terminal`. A writer that sets `status_at` to a new value and
-- `final_status_at` to match is trusted and skips it; one whose new status timestamp equals the old one
-- (an artifact update keeps the status) still runs it, and it derives the same value.

drop trigger tasks_status_at_trigger on tasks;

create trigger tasks_status_at_on_insert
  before insert on tasks
  for each row
  when (new.status_at is null
        or new.final_status_at is distinct from case when new.terminal then new.status_at end)
  execute function tasks_set_status_at();

create trigger tasks_status_at_on_update
  before update of snapshot, terminal, status_at, final_status_at on tasks
  for each row
  when (new.status_at is not distinct from old.status_at
        or new.final_status_at is distinct from case when new.terminal then new.status_at end)
  execute function tasks_set_status_at();
