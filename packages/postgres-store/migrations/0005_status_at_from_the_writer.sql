-- 0005_status_at_from_the_writer: the store writes `status_at` and `final_status_at` itself; the trigger
-- that derived them from the snapshot now runs only for a writer that leaves them alone.
--
-- The trigger ran for every insert of a task and every update of its snapshot: a PL/pgSQL call, the
-- snapshot's status timestamp read out of the jsonb, a regular expression and a cast, and the row
-- formed again. On PGlite that was ~30 us of a ~210 us task start, and as much for every row of a
-- group commit's task update (a task's row is updated three or four times in its life). The store
-- knows the snapshot it writes, so it sends the same value along (the same format check, the same cast in
-- SQL; see `statusAtOf` in src/internal/rows.ts).
--
-- The trigger stays, guarded, for any other writer (an instance still running the previous version
-- during a rolling upgrade, a manual fix in SQL): on insert when `status_at` is left null, on update of the
-- snapshot or `terminal` when `status_at` is left as it was. A writer that sets both columns skips it;
-- when the value it sets happens to equal the old one, the trigger runs and derives the same value.

drop trigger tasks_status_at_trigger on tasks;

create trigger tasks_status_at_on_insert
  before insert on tasks
  for each row when (new.status_at is null) execute function tasks_set_status_at();

create trigger tasks_status_at_on_update
  before update of snapshot, terminal on tasks
  for each row when (new.status_at is not distinct from old.status_at) execute function tasks_set_status_at();
