-- 0002_no_statistics_on_json: ANALYZE skips the JSON documents of tasks and their events.
-- No statement filters, joins or sorts on a task's snapshot or an event's result, so their statistics
-- are never used; building them was most of what an ANALYZE of these tables cost (on PGlite, an ANALYZE
-- of 27,600 events took 0.84 s with them and 0.13 s without; PostgreSQL's autovacuum pays the same).
alter table tasks alter column snapshot set statistics 0;
alter table task_events alter column result set statistics 0;
