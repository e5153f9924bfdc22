-- 0004_metrics_serial_plan: the metrics statement always runs without parallel workers.
--
-- The windowed statement (buildEventMetricsQueries) reads a few thousand rollup rows in a few ms. Once
-- its estimated cost passes the parallel thresholds (an unaligned window on a loaded database: hourly
-- rollups for the partial days, the delta tables' pages), PostgreSQL plans a Gather over a Parallel
-- Append, and starting the workers costs more than the whole serial statement (1M events, ~45-day window:
-- 10–11 ms parallel against 4–5 ms serial, EXPLAIN ANALYZE).
--
-- The statement calls this function. PostgreSQL never plans a parallel query that calls a PARALLEL UNSAFE
-- function ("When Can Parallel Query Be Used?" in its manual); the function is immutable, so the planner
-- folds the call to `true` and nothing runs at execution. Unlike `SET max_parallel_workers_per_gather`,
-- it needs no transaction, no extra round trip and leaves nothing behind on a pooled connection; on
-- PGlite (no parallel workers at all) it is the same constant.
create function metrics_serial_plan() returns boolean
language sql immutable parallel unsafe
as $$ select true $$;
