-- 0004_hot_task_updates: room on every page of `tasks` for the new version of a row.
-- A running task's row is rewritten with every group commit that carries one of its events. With free
-- space on the page, PostgreSQL writes the new version beside the old one and leaves the indexes alone
-- (a heap-only tuple update), instead of adding an entry to every index of the table each time.
alter table tasks set (fillfactor = 70);
