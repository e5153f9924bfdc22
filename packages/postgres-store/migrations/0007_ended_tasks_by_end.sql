-- 0007_ended_tasks_by_end: ended tasks by when they ended, for retention (`pruneEndedTasks`).
--
-- The prune deletes the ended tasks whose `final_status_at` is older than a cutoff, oldest first, a small
-- batch at a time. `tasks_ended_list_idx` starts with the workspace, so a cutoff over every workspace
-- would read it whole for each batch. `final_status_at` is set once, when a task ends, and that update
-- already leaves the heap-only path (it writes `tasks_ended_list_idx`): a running task's updates stay
-- heap-only. Building it locks `tasks` against writes while it runs (plain transactional SQL): on a large
-- table, migrate ahead of the deploy in a quiet period (docs/operations.md, "Migrations").
create index tasks_ended_at_idx on tasks (final_status_at) where terminal;
