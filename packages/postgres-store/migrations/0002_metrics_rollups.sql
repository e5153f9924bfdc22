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
-- COPY stay fast, and concurrent statements lock rollup rows in one global order (hourly rows, then daily
-- rows), so two single-statement writers cannot deadlock on them. Rows that fall to zero are deleted, so
-- rollups stay sparse. `hour` is UTC wall-clock time (timestamp without time zone): bucketing never
-- depends on the session's TimeZone. The functions pin the search_path the migration ran with, so a
-- trigger always updates the rollups beside its raw table whatever the writing session's search_path.
--
-- Plain SQL for the store's migrator, which runs it inside one transaction. PostgreSQL 15+ and PGlite 0.5.

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

create function metrics_rollup_telemetry_events() returns trigger
language plpgsql
set search_path from current
as $fn$
begin
  if tg_op = 'INSERT' then
    -- The daily upsert is a data-modifying CTE: it runs after the hourly one, to completion.
    with delta as (
      select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, event_type, count(*) as n
      from new_rows group by 1, 2, 3
    ), daily as (
      insert into metrics_daily_telemetry_events as r (workspace_id, day, event_type, count)
      select workspace_id, hour::date, event_type, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, event_type) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_telemetry_events as r (workspace_id, hour, event_type, count)
    select workspace_id, hour, event_type, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, event_type) do update set count = r.count + excluded.count;
  elsif tg_op = 'DELETE' then
    -- Negative deltas on rows that exist, since every deleted row was counted.
    with delta as (
      select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, event_type, -count(*) as n
      from old_rows group by 1, 2, 3
    ), daily as (
      insert into metrics_daily_telemetry_events as r (workspace_id, day, event_type, count)
      select workspace_id, hour::date, event_type, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, event_type) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_telemetry_events as r (workspace_id, hour, event_type, count)
    select workspace_id, hour, event_type, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, event_type) do update set count = r.count + excluded.count;
    -- Drop the rows this statement brought to zero (already locked by the upsert above).
    with touched as (
      select distinct workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, event_type from old_rows
    ), daily_zero as (
      delete from metrics_daily_telemetry_events r
      using (select distinct workspace_id, hour::date as day, event_type from touched) t
      where r.workspace_id = t.workspace_id and r.day = t.day and r.event_type = t.event_type and r.count = 0
    )
    delete from metrics_hourly_telemetry_events r
    using touched t
    where r.workspace_id = t.workspace_id and r.hour = t.hour and r.event_type = t.event_type and r.count = 0;
  elsif tg_op = 'UPDATE' then
    -- Net change only: an update that keeps workspace, hour and key (a status change) writes nothing.
    with delta as (
      select workspace_id, hour, event_type, sum(n) as n
      from (
        select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, event_type, 1 as n from new_rows
        union all
        select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, event_type, -1 as n from old_rows
      ) moved
      group by 1, 2, 3 having sum(n) <> 0
    ), daily as (
      insert into metrics_daily_telemetry_events as r (workspace_id, day, event_type, count)
      select workspace_id, hour::date, event_type, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, event_type) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_telemetry_events as r (workspace_id, hour, event_type, count)
    select workspace_id, hour, event_type, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, event_type) do update set count = r.count + excluded.count;
    -- Drop the rows this statement brought to zero (already locked by the upsert above).
    with touched as (
      select distinct workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, event_type from old_rows
    ), daily_zero as (
      delete from metrics_daily_telemetry_events r
      using (select distinct workspace_id, hour::date as day, event_type from touched) t
      where r.workspace_id = t.workspace_id and r.day = t.day and r.event_type = t.event_type and r.count = 0
    )
    delete from metrics_hourly_telemetry_events r
    using touched t
    where r.workspace_id = t.workspace_id and r.hour = t.hour and r.event_type = t.event_type and r.count = 0;
  elsif tg_op = 'TRUNCATE' then
    delete from metrics_daily_telemetry_events;
    delete from metrics_hourly_telemetry_events;
  end if;
  return null;
end
$fn$;

create trigger metrics_rollup_telemetry_events_insert after insert on telemetry_events
  referencing new table as new_rows
  for each statement execute function metrics_rollup_telemetry_events();
create trigger metrics_rollup_telemetry_events_update after update on telemetry_events
  referencing old table as old_rows new table as new_rows
  for each statement execute function metrics_rollup_telemetry_events();
create trigger metrics_rollup_telemetry_events_delete after delete on telemetry_events
  referencing old table as old_rows
  for each statement execute function metrics_rollup_telemetry_events();
create trigger metrics_rollup_telemetry_events_truncate after truncate on telemetry_events
  for each statement execute function metrics_rollup_telemetry_events();

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

create function metrics_rollup_workflow_executions() returns trigger
language plpgsql
set search_path from current
as $fn$
begin
  if tg_op = 'INSERT' then
    -- The daily upsert is a data-modifying CTE: it runs after the hourly one, to completion.
    with delta as (
      select workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id, count(*) as n
      from new_rows group by 1, 2, 3
    ), daily as (
      insert into metrics_daily_workflow_executions as r (workspace_id, day, workflow_id, count)
      select workspace_id, hour::date, workflow_id, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, workflow_id) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_workflow_executions as r (workspace_id, hour, workflow_id, count)
    select workspace_id, hour, workflow_id, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, workflow_id) do update set count = r.count + excluded.count;
  elsif tg_op = 'DELETE' then
    -- Negative deltas on rows that exist, since every deleted row was counted.
    with delta as (
      select workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id, -count(*) as n
      from old_rows group by 1, 2, 3
    ), daily as (
      insert into metrics_daily_workflow_executions as r (workspace_id, day, workflow_id, count)
      select workspace_id, hour::date, workflow_id, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, workflow_id) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_workflow_executions as r (workspace_id, hour, workflow_id, count)
    select workspace_id, hour, workflow_id, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, workflow_id) do update set count = r.count + excluded.count;
    -- Drop the rows this statement brought to zero (already locked by the upsert above).
    with touched as (
      select distinct workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id from old_rows
    ), daily_zero as (
      delete from metrics_daily_workflow_executions r
      using (select distinct workspace_id, hour::date as day, workflow_id from touched) t
      where r.workspace_id = t.workspace_id and r.day = t.day and r.workflow_id = t.workflow_id and r.count = 0
    )
    delete from metrics_hourly_workflow_executions r
    using touched t
    where r.workspace_id = t.workspace_id and r.hour = t.hour and r.workflow_id = t.workflow_id and r.count = 0;
  elsif tg_op = 'UPDATE' then
    -- Net change only: an update that keeps workspace, hour and key (a status change) writes nothing.
    with delta as (
      select workspace_id, hour, workflow_id, sum(n) as n
      from (
        select workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id, 1 as n from new_rows
        union all
        select workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id, -1 as n from old_rows
      ) moved
      group by 1, 2, 3 having sum(n) <> 0
    ), daily as (
      insert into metrics_daily_workflow_executions as r (workspace_id, day, workflow_id, count)
      select workspace_id, hour::date, workflow_id, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, workflow_id) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_workflow_executions as r (workspace_id, hour, workflow_id, count)
    select workspace_id, hour, workflow_id, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, workflow_id) do update set count = r.count + excluded.count;
    -- Drop the rows this statement brought to zero (already locked by the upsert above).
    with touched as (
      select distinct workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id from old_rows
    ), daily_zero as (
      delete from metrics_daily_workflow_executions r
      using (select distinct workspace_id, hour::date as day, workflow_id from touched) t
      where r.workspace_id = t.workspace_id and r.day = t.day and r.workflow_id = t.workflow_id and r.count = 0
    )
    delete from metrics_hourly_workflow_executions r
    using touched t
    where r.workspace_id = t.workspace_id and r.hour = t.hour and r.workflow_id = t.workflow_id and r.count = 0;
  elsif tg_op = 'TRUNCATE' then
    delete from metrics_daily_workflow_executions;
    delete from metrics_hourly_workflow_executions;
  end if;
  return null;
end
$fn$;

create trigger metrics_rollup_workflow_executions_insert after insert on workflow_executions
  referencing new table as new_rows
  for each statement execute function metrics_rollup_workflow_executions();
create trigger metrics_rollup_workflow_executions_update after update on workflow_executions
  referencing old table as old_rows new table as new_rows
  for each statement execute function metrics_rollup_workflow_executions();
create trigger metrics_rollup_workflow_executions_delete after delete on workflow_executions
  referencing old table as old_rows
  for each statement execute function metrics_rollup_workflow_executions();
create trigger metrics_rollup_workflow_executions_truncate after truncate on workflow_executions
  for each statement execute function metrics_rollup_workflow_executions();

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

create function metrics_rollup_workflow_node_executions() returns trigger
language plpgsql
set search_path from current
as $fn$
begin
  if tg_op = 'INSERT' then
    -- The daily upsert is a data-modifying CTE: it runs after the hourly one, to completion.
    with delta as (
      select workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id, count(*) as n
      from new_rows group by 1, 2, 3
    ), daily as (
      insert into metrics_daily_workflow_node_executions as r (workspace_id, day, workflow_id, count)
      select workspace_id, hour::date, workflow_id, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, workflow_id) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_workflow_node_executions as r (workspace_id, hour, workflow_id, count)
    select workspace_id, hour, workflow_id, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, workflow_id) do update set count = r.count + excluded.count;
  elsif tg_op = 'DELETE' then
    -- Negative deltas on rows that exist, since every deleted row was counted.
    with delta as (
      select workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id, -count(*) as n
      from old_rows group by 1, 2, 3
    ), daily as (
      insert into metrics_daily_workflow_node_executions as r (workspace_id, day, workflow_id, count)
      select workspace_id, hour::date, workflow_id, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, workflow_id) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_workflow_node_executions as r (workspace_id, hour, workflow_id, count)
    select workspace_id, hour, workflow_id, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, workflow_id) do update set count = r.count + excluded.count;
    -- Drop the rows this statement brought to zero (already locked by the upsert above).
    with touched as (
      select distinct workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id from old_rows
    ), daily_zero as (
      delete from metrics_daily_workflow_node_executions r
      using (select distinct workspace_id, hour::date as day, workflow_id from touched) t
      where r.workspace_id = t.workspace_id and r.day = t.day and r.workflow_id = t.workflow_id and r.count = 0
    )
    delete from metrics_hourly_workflow_node_executions r
    using touched t
    where r.workspace_id = t.workspace_id and r.hour = t.hour and r.workflow_id = t.workflow_id and r.count = 0;
  elsif tg_op = 'UPDATE' then
    -- Net change only: an update that keeps workspace, hour and key (a status change) writes nothing.
    with delta as (
      select workspace_id, hour, workflow_id, sum(n) as n
      from (
        select workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id, 1 as n from new_rows
        union all
        select workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id, -1 as n from old_rows
      ) moved
      group by 1, 2, 3 having sum(n) <> 0
    ), daily as (
      insert into metrics_daily_workflow_node_executions as r (workspace_id, day, workflow_id, count)
      select workspace_id, hour::date, workflow_id, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, workflow_id) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_workflow_node_executions as r (workspace_id, hour, workflow_id, count)
    select workspace_id, hour, workflow_id, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, workflow_id) do update set count = r.count + excluded.count;
    -- Drop the rows this statement brought to zero (already locked by the upsert above).
    with touched as (
      select distinct workspace_id, date_trunc('hour', started_at at time zone 'UTC') as hour, workflow_id from old_rows
    ), daily_zero as (
      delete from metrics_daily_workflow_node_executions r
      using (select distinct workspace_id, hour::date as day, workflow_id from touched) t
      where r.workspace_id = t.workspace_id and r.day = t.day and r.workflow_id = t.workflow_id and r.count = 0
    )
    delete from metrics_hourly_workflow_node_executions r
    using touched t
    where r.workspace_id = t.workspace_id and r.hour = t.hour and r.workflow_id = t.workflow_id and r.count = 0;
  elsif tg_op = 'TRUNCATE' then
    delete from metrics_daily_workflow_node_executions;
    delete from metrics_hourly_workflow_node_executions;
  end if;
  return null;
end
$fn$;

create trigger metrics_rollup_workflow_node_executions_insert after insert on workflow_node_executions
  referencing new table as new_rows
  for each statement execute function metrics_rollup_workflow_node_executions();
create trigger metrics_rollup_workflow_node_executions_update after update on workflow_node_executions
  referencing old table as old_rows new table as new_rows
  for each statement execute function metrics_rollup_workflow_node_executions();
create trigger metrics_rollup_workflow_node_executions_delete after delete on workflow_node_executions
  referencing old table as old_rows
  for each statement execute function metrics_rollup_workflow_node_executions();
create trigger metrics_rollup_workflow_node_executions_truncate after truncate on workflow_node_executions
  for each statement execute function metrics_rollup_workflow_node_executions();

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

create function metrics_rollup_alerts() returns trigger
language plpgsql
set search_path from current
as $fn$
begin
  if tg_op = 'INSERT' then
    -- The daily upsert is a data-modifying CTE: it runs after the hourly one, to completion.
    with delta as (
      select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, alert_type, count(*) as n
      from new_rows group by 1, 2, 3
    ), daily as (
      insert into metrics_daily_alerts as r (workspace_id, day, alert_type, count)
      select workspace_id, hour::date, alert_type, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, alert_type) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_alerts as r (workspace_id, hour, alert_type, count)
    select workspace_id, hour, alert_type, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, alert_type) do update set count = r.count + excluded.count;
  elsif tg_op = 'DELETE' then
    -- Negative deltas on rows that exist, since every deleted row was counted.
    with delta as (
      select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, alert_type, -count(*) as n
      from old_rows group by 1, 2, 3
    ), daily as (
      insert into metrics_daily_alerts as r (workspace_id, day, alert_type, count)
      select workspace_id, hour::date, alert_type, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, alert_type) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_alerts as r (workspace_id, hour, alert_type, count)
    select workspace_id, hour, alert_type, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, alert_type) do update set count = r.count + excluded.count;
    -- Drop the rows this statement brought to zero (already locked by the upsert above).
    with touched as (
      select distinct workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, alert_type from old_rows
    ), daily_zero as (
      delete from metrics_daily_alerts r
      using (select distinct workspace_id, hour::date as day, alert_type from touched) t
      where r.workspace_id = t.workspace_id and r.day = t.day and r.alert_type = t.alert_type and r.count = 0
    )
    delete from metrics_hourly_alerts r
    using touched t
    where r.workspace_id = t.workspace_id and r.hour = t.hour and r.alert_type = t.alert_type and r.count = 0;
  elsif tg_op = 'UPDATE' then
    -- Net change only: an update that keeps workspace, hour and key (a status change) writes nothing.
    with delta as (
      select workspace_id, hour, alert_type, sum(n) as n
      from (
        select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, alert_type, 1 as n from new_rows
        union all
        select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, alert_type, -1 as n from old_rows
      ) moved
      group by 1, 2, 3 having sum(n) <> 0
    ), daily as (
      insert into metrics_daily_alerts as r (workspace_id, day, alert_type, count)
      select workspace_id, hour::date, alert_type, sum(n) from delta
      group by 1, 2, 3 having sum(n) <> 0 order by 1, 2, 3
      on conflict (workspace_id, day, alert_type) do update set count = r.count + excluded.count
    )
    insert into metrics_hourly_alerts as r (workspace_id, hour, alert_type, count)
    select workspace_id, hour, alert_type, n from delta order by 1, 2, 3
    on conflict (workspace_id, hour, alert_type) do update set count = r.count + excluded.count;
    -- Drop the rows this statement brought to zero (already locked by the upsert above).
    with touched as (
      select distinct workspace_id, date_trunc('hour', occurred_at at time zone 'UTC') as hour, alert_type from old_rows
    ), daily_zero as (
      delete from metrics_daily_alerts r
      using (select distinct workspace_id, hour::date as day, alert_type from touched) t
      where r.workspace_id = t.workspace_id and r.day = t.day and r.alert_type = t.alert_type and r.count = 0
    )
    delete from metrics_hourly_alerts r
    using touched t
    where r.workspace_id = t.workspace_id and r.hour = t.hour and r.alert_type = t.alert_type and r.count = 0;
  elsif tg_op = 'TRUNCATE' then
    delete from metrics_daily_alerts;
    delete from metrics_hourly_alerts;
  end if;
  return null;
end
$fn$;

create trigger metrics_rollup_alerts_insert after insert on alerts
  referencing new table as new_rows
  for each statement execute function metrics_rollup_alerts();
create trigger metrics_rollup_alerts_update after update on alerts
  referencing old table as old_rows new table as new_rows
  for each statement execute function metrics_rollup_alerts();
create trigger metrics_rollup_alerts_delete after delete on alerts
  referencing old table as old_rows
  for each statement execute function metrics_rollup_alerts();
create trigger metrics_rollup_alerts_truncate after truncate on alerts
  for each statement execute function metrics_rollup_alerts();

-- Rows written before this migration (the triggers above already lock out concurrent writers).
insert into metrics_hourly_alerts (workspace_id, hour, alert_type, count)
select workspace_id, date_trunc('hour', occurred_at at time zone 'UTC'), alert_type, count(*) from alerts group by 1, 2, 3;
insert into metrics_daily_alerts (workspace_id, day, alert_type, count)
select workspace_id, hour::date, alert_type, sum(count) from metrics_hourly_alerts group by 1, 2, 3;
