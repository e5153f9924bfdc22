-- 0003_timestamps_within_window_range: a raw row's time must be one a window can name.
--
-- Metrics buckets rows by UTC day (`YYYY-MM-DD`) and windows are bounded by timestamps from year 1 to
-- 9999. PostgreSQL also stores 'infinity', '-infinity', years BC and years past 9999: such a row had no day
-- label a response can carry (one 'infinity' made every window that reached it fail, for every caller of
-- the workspace, until the row was deleted), and a BC day shared its label with the same day AD. The
-- check refuses such a row at its insert instead, where the writer sees the error.
--
-- NOT VALID: rows already stored are not scanned here (a migration that fails on old data would keep the
-- server from starting); new and updated rows are checked. To find old ones:
--   alter table telemetry_events validate constraint telemetry_events_occurred_at_range;  (and so on)
alter table telemetry_events add constraint telemetry_events_occurred_at_range
  check (occurred_at >= '0001-01-01 00:00:00+00' and occurred_at < '10000-01-01 00:00:00+00') not valid;
alter table alerts add constraint alerts_occurred_at_range
  check (occurred_at >= '0001-01-01 00:00:00+00' and occurred_at < '10000-01-01 00:00:00+00') not valid;
alter table workflow_executions add constraint workflow_executions_started_at_range
  check (started_at >= '0001-01-01 00:00:00+00' and started_at < '10000-01-01 00:00:00+00') not valid;
alter table workflow_node_executions add constraint workflow_node_executions_started_at_range
  check (started_at >= '0001-01-01 00:00:00+00' and started_at < '10000-01-01 00:00:00+00') not valid;
