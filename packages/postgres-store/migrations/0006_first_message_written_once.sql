-- 0006_first_message_written_once: a task's first message (its `history[0]`, the partner's message, up to
-- 16 KiB) is written once, in a column of its own, instead of with every event.
--
-- A task row kept the whole task as its snapshot, and every event rewrote that snapshot: PostgreSQL writes
-- a changed jsonb value whole (its TOAST chunks too), so the first message was written again with each
-- status update, and once more in the seq-1 `task` event. For a task with a 16 KB first message and 12
-- events that was ~244 KB of WAL (bench/retention/bytes-per-task.ts; docs/operations.md, "Retention").
--
-- A row written by this release keeps the message in `first_message` and its snapshot without it; the
-- seq-1 event's result likewise. An update that leaves `first_message` alone does not write it again (an
-- unchanged TOASTed value is carried by reference). The store puts the message back as `history[0]` on
-- every read. A row whose `first_message` is null (every row written before, any row an instance of the
-- previous release writes) keeps its whole task in `snapshot`, as before, and reads as before.
alter table tasks add column first_message jsonb null;
-- As 0002 did for the other documents: nothing filters or sorts on it.
alter table tasks alter column first_message set statistics 0;
