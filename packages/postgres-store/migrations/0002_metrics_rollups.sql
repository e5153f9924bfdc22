-- 0002_metrics_rollups: daily and hourly rollups behind GET /api/v1/metrics/events/{workspace}.
--
-- For each counted record kind, `metrics_daily_*` holds (workspace, UTC day, key) -> count and
-- `metrics_hourly_*` holds (workspace, UTC hour, key) -> count. A windowed query (metrics-core's
-- buildEventMetricsQueries) reads whole days from the daily table, whole hours of a partial first/last
-- day from the hourly table and raw rows only for a partial first/last hour, so its cost follows
-- days x keys, not the number of events, and the answer is exact.
--
-- Statement-level triggers with transition tables keep both tables exact in the same transaction as every
-- raw INSERT, UPDATE, DELETE and TRUNCATE. Each statement's rows are grouped once into signed deltas per
-- (workspace, hour, key) and applied as one upsert per table, in key order: bulk INSERT ... SELECT and
-- COPY stay fast. The hourly upsert and the daily upsert are two separate statements, hourly first, so
-- concurrent statements lock rollup rows in one global order (hourly rows in key order, then daily rows in
-- key order) and two single-statement writers cannot deadlock on them. (They are not two data-modifying
-- CTEs of one statement: PostgreSQL runs those in an unspecified order.) Rows that fall to zero are
-- deleted, so rollups stay sparse. `hour` is UTC wall-clock time (timestamp without time zone): bucketing
-- never depends on the session's TimeZone. The function pins the search_path the migration ran with, so a
-- trigger always updates the rollups beside its raw table whatever the writing session's search_path.
--
-- One trigger function serves all four record kinds; each CREATE TRIGGER names, in order, the key column,
-- the time column, the daily table and the hourly table. They reach the SQL through format('%I'), so they
-- are always quoted identifiers, and the transition tables new_rows/old_rows are visible to EXECUTE.
--
-- Plain SQL for the store's migrator, which runs it inside one transaction. PostgreSQL 15+ and PGlite 0.5.

create function metrics_rollup() returns trigger
language plpgsql
set search_path from current
as $fn$
declare
  key_col text;
  daily_table text;
  hourly_table text;
  hour_of text;   -- SQL for a row's UTC hour bucket
  delta text;     -- SQL for this statement's signed deltas per (workspace_id, hour, k)
begin
  if tg_nargs <> 4 then
    raise exception 'metrics_rollup needs 4 trigger arguments (key column, time column, daily table, hourly table), got %', tg_nargs;
  end if;
  key_col := tg_argv[0];
  daily_table := tg_argv[2];
  hourly_table := tg_argv[3];
  hour_of := format($q$date_trunc('hour', %I at time zone 'UTC')$q$, tg_argv[1]);

  if tg_op = 'TRUNCATE' then
    execute format('delete from %I', daily_table);
    execute format('delete from %I', hourly_table);
    return null;
  elsif tg_op = 'INSERT' then
    delta := format('select workspace_id, %s as hour, %I as k, count(*) as n from new_rows group by 1, 2, 3',
      hour_of, key_col);
  elsif tg_op = 'DELETE' then
    -- Negative deltas on rows that exist, since every deleted row was counted.
    delta := format('select workspace_id, %s as hour, %I as k, -count(*) as n from old_rows group by 1, 2, 3',
      hour_of, key_col);
  else
    -- UPDATE. Net change only: an update that keeps workspace, hour and key (a status change) writes nothing.
    delta := format($q$
      select workspace_id, hour, k, sum(n) as n
      from (
        select workspace_id, %1$s as hour, %2$I as k, 1 as n from new_rows
        union all
        select workspace_id, %1$s as hour, %2$I as k, -1 as n from old_rows
      ) moved
      group by 1, 2, 3 having sum(n) <> 0$q$, hour_of, key_col);
  end if;

  -- Hourly rows first, then daily rows, each in key order: see the header for why these are two statements.
  execute format($q$
    with delta as (%1$s)
    insert into %2$I as r (workspace_id, hour, %3$I, count)
    select workspace_id, hour, k, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, %3$I) do update set count = r.count + excluded.count$q$,
    delta, hourly_table, key_col);
  execute format($q$
    with delta as (%1$s)
    insert into %2$I as r (workspace_id, day, %3$I, count)
    select workspace_id, hour::date, k, sum(n) from delta
    group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
    on conflict (workspace_id, day, %3$I) do update set count = r.count + excluded.count$q$,
    delta, daily_table, key_col);

  if tg_op in ('DELETE', 'UPDATE') then
    -- Drop the rows this statement brought to zero (already locked by the upserts above). Only a removed
    -- row can lower a count, so old_rows names every candidate.
    execute format($q$
      delete from %1$I r
      using (select distinct workspace_id, %2$s as hour, %3$I as k from old_rows) t
      where r.workspace_id = t.workspace_id and r.hour = t.hour and r.%3$I = t.k and r.count = 0$q$,
      hourly_table, hour_of, key_col);
    execute format($q$
      delete from %1$I r
      using (select distinct workspace_id, (%2$s)::date as day, %3$I as k from old_rows) t
      where r.workspace_id = t.workspace_id and r.day = t.day and r.%3$I = t.k and r.count = 0$q$,
      daily_table, hour_of, key_col);
  end if;
  return null;
end
$fn$;

-- telemetry_events: counted by occurred_at, keyed by event_type ---------------------------------------

create table metrics_daily_telemetry_events (
  workspace_id uuid not null,
  day date not null,
  event_type text not null,
  count bigint not null,
  primary key (workspace_id, day, event_type)
);

create table metrics_hourly_telemetry_events (
  workspace_id uuid not null,
  hour timestamp not null,
  event_type text not null,
  count bigint not null,
  primary key (workspace_id, hour, event_type)
);

-- Serves the raw edge scans (partial first/last hour) and the raw baseline. It replaces 0001's plain
-- (workspace_id, occurred_at) index under the same name: the included key lets those scans run index-only.
drop index if exists telemetry_events_workspace_occurred_idx;
create index telemetry_events_workspace_occurred_idx on telemetry_events (workspace_id, occurred_at) include (event_type);

create trigger metrics_rollup_telemetry_events_insert after insert on telemetry_events
  referencing new table as new_rows
  for each statement execute function metrics_rollup('event_type', 'occurred_at', 'metrics_daily_telemetry_events', 'metrics_hourly_telemetry_events');
create trigger metrics_rollup_telemetry_events_update after update on telemetry_events
  referencing old table as old_rows new table as new_rows
  for each statement execute function metrics_rollup('event_type', 'occurred_at', 'metrics_daily_telemetry_events', 'metrics_hourly_telemetry_events');
create trigger metrics_rollup_telemetry_events_delete after delete on telemetry_events
  referencing old table as old_rows
  for each statement execute function metrics_rollup('event_type', 'occurred_at', 'metrics_daily_telemetry_events', 'metrics_hourly_telemetry_events');
create trigger metrics_rollup_telemetry_events_truncate after truncate on telemetry_events
  for each statement execute function metrics_rollup('event_type', 'occurred_at', 'metrics_daily_telemetry_events', 'metrics_hourly_telemetry_events');

-- Rows written before this migration (the triggers above already lock out concurrent writers).
insert into metrics_hourly_telemetry_events (workspace_id, hour, event_type, count)
select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC'), event_type, count(*) from telemetry_events group by 1, 2, 3;
insert into metrics_daily_telemetry_events (workspace_id, day, event_type, count)
select workspace_id, hour::date, event_type, sum(count) from metrics_hourly_telemetry_events group by 1, 2, 3;

-- workflow_executions: counted by started_at, keyed by workflow_id ------------------------------------

create table metrics_daily_workflow_executions (
  workspace_id uuid not null,
  day date not null,
  workflow_id uuid not null,
  count bigint not null,
  primary key (workspace_id, day, workflow_id)
);

create table metrics_hourly_workflow_executions (
  workspace_id uuid not null,
  hour timestamp not null,
  workflow_id uuid not null,
  count bigint not null,
  primary key (workspace_id, hour, workflow_id)
);

-- Serves the raw edge scans (partial first/last hour) and the raw baseline. It replaces 0001's plain
-- (workspace_id, started_at) index under the same name: the included key lets those scans run index-only.
drop index if exists workflow_executions_workspace_started_idx;
create index workflow_executions_workspace_started_idx on workflow_executions (workspace_id, started_at) include (workflow_id);

create trigger metrics_rollup_workflow_executions_insert after insert on workflow_executions
  referencing new table as new_rows
  for each statement execute function metrics_rollup('workflow_id', 'started_at', 'metrics_daily_workflow_executions', 'metrics_hourly_workflow_executions');
create trigger metrics_rollup_workflow_executions_update after update on workflow_executions
  referencing old table as old_rows new table as new_rows
  for each statement execute function metrics_rollup('workflow_id', 'started_at', 'metrics_daily_workflow_executions', 'metrics_hourly_workflow_executions');
create trigger metrics_rollup_workflow_executions_delete after delete on workflow_executions
  referencing old table as old_rows
  for each statement execute function metrics_rollup('workflow_id', 'started_at', 'metrics_daily_workflow_executions', 'metrics_hourly_workflow_executions');
create trigger metrics_rollup_workflow_executions_truncate after truncate on workflow_executions
  for each statement execute function metrics_rollup('workflow_id', 'started_at', 'metrics_daily_workflow_executions', 'metrics_hourly_workflow_executions');

-- Rows written before this migration (the triggers above already lock out concurrent writers).
insert into metrics_hourly_workflow_executions (workspace_id, hour, workflow_id, count)
select workspace_id, date_trunc('hour', started_at at time zone 'UTC'), workflow_id, count(*) from workflow_executions group by 1, 2, 3;
insert into metrics_daily_workflow_executions (workspace_id, day, workflow_id, count)
select workspace_id, hour::date, workflow_id, sum(count) from metrics_hourly_workflow_executions group by 1, 2, 3;

-- workflow_node_executions: counted by started_at, keyed by workflow_id -------------------------------

create table metrics_daily_workflow_node_executions (
  workspace_id uuid not null,
  day date not null,
  workflow_id uuid not null,
  count bigint not null,
  primary key (workspace_id, day, workflow_id)
);

create table metrics_hourly_workflow_node_executions (
  workspace_id uuid not null,
  hour timestamp not null,
  workflow_id uuid not null,
  count bigint not null,
  primary key (workspace_id, hour, workflow_id)
);

-- Serves the raw edge scans (partial first/last hour) and the raw baseline. It replaces 0001's plain
-- (workspace_id, started_at) index under the same name: the included key lets those scans run index-only.
drop index if exists workflow_node_executions_workspace_started_idx;
create index workflow_node_executions_workspace_started_idx on workflow_node_executions (workspace_id, started_at) include (workflow_id);

create trigger metrics_rollup_workflow_node_executions_insert after insert on workflow_node_executions
  referencing new table as new_rows
  for each statement execute function metrics_rollup('workflow_id', 'started_at', 'metrics_daily_workflow_node_executions', 'metrics_hourly_workflow_node_executions');
create trigger metrics_rollup_workflow_node_executions_update after update on workflow_node_executions
  referencing old table as old_rows new table as new_rows
  for each statement execute function metrics_rollup('workflow_id', 'started_at', 'metrics_daily_workflow_node_executions', 'metrics_hourly_workflow_node_executions');
create trigger metrics_rollup_workflow_node_executions_delete after delete on workflow_node_executions
  referencing old table as old_rows
  for each statement execute function metrics_rollup('workflow_id', 'started_at', 'metrics_daily_workflow_node_executions', 'metrics_hourly_workflow_node_executions');
create trigger metrics_rollup_workflow_node_executions_truncate after truncate on workflow_node_executions
  for each statement execute function metrics_rollup('workflow_id', 'started_at', 'metrics_daily_workflow_node_executions', 'metrics_hourly_workflow_node_executions');

-- Rows written before this migration (the triggers above already lock out concurrent writers).
insert into metrics_hourly_workflow_node_executions (workspace_id, hour, workflow_id, count)
select workspace_id, date_trunc('hour', started_at at time zone 'UTC'), workflow_id, count(*) from workflow_node_executions group by 1, 2, 3;
insert into metrics_daily_workflow_node_executions (workspace_id, day, workflow_id, count)
select workspace_id, hour::date, workflow_id, sum(count) from metrics_hourly_workflow_node_executions group by 1, 2, 3;

-- alerts: counted by occurred_at, keyed by alert_type -------------------------------------------------

create table metrics_daily_alerts (
  workspace_id uuid not null,
  day date not null,
  alert_type text not null,
  count bigint not null,
  primary key (workspace_id, day, alert_type)
);

create table metrics_hourly_alerts (
  workspace_id uuid not null,
  hour timestamp not null,
  alert_type text not null,
  count bigint not null,
  primary key (workspace_id, hour, alert_type)
);

-- Serves the raw edge scans (partial first/last hour) and the raw baseline. It replaces 0001's plain
-- (workspace_id, occurred_at) index under the same name: the included key lets those scans run index-only.
drop index if exists alerts_workspace_occurred_idx;
create index alerts_workspace_occurred_idx on alerts (workspace_id, occurred_at) include (alert_type);

create trigger metrics_rollup_alerts_insert after insert on alerts
  referencing new table as new_rows
  for each statement execute function metrics_rollup('alert_type', 'occurred_at', 'metrics_daily_alerts', 'metrics_hourly_alerts');
create trigger metrics_rollup_alerts_update after update on alerts
  referencing old table as old_rows new table as new_rows
  for each statement execute function metrics_rollup('alert_type', 'occurred_at', 'metrics_daily_alerts', 'metrics_hourly_alerts');
create trigger metrics_rollup_alerts_delete after delete on alerts
  referencing old table as old_rows
  for each statement execute function metrics_rollup('alert_type', 'occurred_at', 'metrics_daily_alerts', 'metrics_hourly_alerts');
create trigger metrics_rollup_alerts_truncate after truncate on alerts
  for each statement execute function metrics_rollup('alert_type', 'occurred_at', 'metrics_daily_alerts', 'metrics_hourly_alerts');

-- Rows written before this migration (the triggers above already lock out concurrent writers).
insert into metrics_hourly_alerts (workspace_id, hour, alert_type, count)
select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC'), alert_type, count(*) from alerts group by 1, 2, 3;
insert into metrics_daily_alerts (workspace_id, day, alert_type, count)
select workspace_id, hour::date, alert_type, sum(count) from metrics_hourly_alerts group by 1, 2, 3;
