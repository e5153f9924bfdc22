-- 0001_metrics: the raw records metrics count, their rollups and the compaction that keeps them.
--
-- Raw tables: workflows (whose names the workflow sections report), workflow_executions,
-- workflow_node_executions, telemetry_events and alerts. Their column names and types are a contract with
-- the rollup triggers below and with metrics-core's queries. `workspace_id` is the embedder's tenant key:
-- nothing here knows what a workspace is (the reference server's migrations add its foreign keys, and the
-- unique workflow name per workspace that its robot fleet relies on).
--
-- Rollups, per counted record kind: `metrics_daily_<raw>` holds (workspace, UTC day, key) -> count and
-- `metrics_hourly_<raw>` (workspace, UTC hour, key) -> count. A windowed query (buildEventMetricsQueries)
-- reads whole days from the daily table, whole hours of a partial first/last day from the hourly table
-- and raw rows only for a partial first/last hour, plus the deltas not folded yet, so its cost follows
-- days x keys, not the number of events, and the answer is exact. `hour` is UTC wall-clock time
-- (timestamp without time zone): bucketing never depends on the session's TimeZone.
--
-- Writers never touch the rollup rows: statement-level triggers with transition tables append each raw
-- statement's counts per (workspace, UTC hour, key) to `metrics_deltas_<raw>`, with no index, no ON
-- CONFLICT and no row another writer could hold, so concurrent writers never wait on each other. Deletes
-- append negative counts; an update appends its net move (nothing for a status change).
-- `metrics_compact_rollups()` folds the deltas into the daily and hourly rollups: per kind, one statement
-- deletes the deltas it sees and applies their sums to both rollups, so in any snapshot rollups + deltas
-- = the raw count. Compactions of one kind never run at once: each takes a transaction-scoped advisory
-- lock on the kind (pg_try_: a busy kind is skipped until the next run), so servers can all run it on a
-- timer. A TRUNCATE of a raw table waits for that lock before emptying the kind's deltas and rollups.
--
-- The trigger functions are generated per kind so their statements are static: PL/pgSQL plans them once
-- per session instead of parsing a dynamic EXECUTE on every raw statement. Hours are binned with date_bin
-- on the timestamptz (integer arithmetic, the same UTC hours as date_trunc('hour', t at time zone 'UTC')
-- for every instant, infinity included) and stored as the hour's first instant; the compaction turns
-- them into UTC wall-clock hours. Functions pin the search_path the migration ran with, so a trigger
-- always writes beside its raw table whatever the writing session's search_path.
--
-- Plain SQL for postgres-store's migrator, which runs it inside one transaction. PostgreSQL 15+ and
-- PGlite 0.5.

-- Raw tables -----------------------------------------------------------------------------------------

create table workflows (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  name text not null,
  created_at timestamptz not null default now()
);

create table workflow_executions (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  workflow_id uuid not null references workflows,
  task_id uuid null,
  status text not null,
  started_at timestamptz not null,
  finished_at timestamptz null
);

create table workflow_node_executions (
  id uuid primary key default gen_random_uuid(),
  workspace_id uuid not null,
  workflow_execution_id uuid not null references workflow_executions,
  workflow_id uuid not null references workflows,
  node_name text not null,
  status text not null,
  started_at timestamptz not null,
  finished_at timestamptz null
);
create index workflow_node_executions_execution_idx on workflow_node_executions (workflow_execution_id);

create table telemetry_events (
  id bigint generated always as identity primary key,
  workspace_id uuid not null,
  environment_id uuid null,
  robot_id uuid null,
  event_type text not null,
  payload jsonb not null default '{}',
  occurred_at timestamptz not null
);

create table alerts (
  id bigint generated always as identity primary key,
  workspace_id uuid not null,
  environment_id uuid null,
  robot_id uuid null,
  alert_type text not null,
  severity text not null default 'warning',
  message text not null default '',
  occurred_at timestamptz not null
);

-- Rollups --------------------------------------------------------------------------------------------

-- The advisory-lock key of one kind: a tag in the high half and the delta table's OID in the low half, so
-- kinds and schemas never share a key (advisory locks are per database already) and nothing else in this
-- project uses the tag.
create function metrics_rollup_lock_key(deltas regclass) returns bigint
language sql immutable
as $$ select (1835365490::bigint << 32) | deltas::oid::bigint $$;  -- 1835365490 = 'metr'

-- Installs the rollup of one raw table: its window index, daily and hourly rollups, deltas table, delta
-- trigger function and triggers, and the rollups of rows already there. Called once per kind below and
-- dropped again: it is a tool of this migration, not part of the schema.
create function metrics_install_rollup(raw text, key_col text, key_type text, time_col text) returns void
language plpgsql
as $install$
declare
  op text;
begin
  -- Serves the raw edge scans (partial first/last hour) and the raw baseline; the included key lets them
  -- run index-only. Named after the time column: alerts_workspace_occurred_idx, ….
  execute format('create index %I on %I (workspace_id, %I) include (%I)',
    format('%s_workspace_%s_idx', raw, regexp_replace(time_col, '_at$', '')), raw, time_col, key_col);

  execute format('create table %I (workspace_id uuid not null, day date not null, %I %s not null, '
    'count bigint not null, primary key (workspace_id, day, %I))', 'metrics_daily_' || raw, key_col, key_type, key_col);
  execute format('create table %I (workspace_id uuid not null, hour timestamp not null, %I %s not null, '
    'count bigint not null, primary key (workspace_id, hour, %I))', 'metrics_hourly_' || raw, key_col, key_type, key_col);
  execute format('create table %I (workspace_id uuid not null, hour_start timestamptz not null, %I %s not null, '
    'count bigint not null)', 'metrics_deltas_' || raw, key_col, key_type);
  -- Rows come and go all the time: vacuum must not take the exclusive lock that truncating the table's
  -- empty tail needs, which would make writers' delta inserts wait.
  execute format('alter table %I set (vacuum_truncate = false)', 'metrics_deltas_' || raw);

  -- The function's text is kept as it always was (the catalog keeps it, and schemas are compared by it).
  -- %1$I delta table, %2$I key column, %3$s hour bin of a row, %4$I hourly rollup, %5$I daily rollup.
  execute format($create$
      create function %1$I() returns trigger
      language plpgsql
      set search_path from current
      as $fn$
      begin
        if tg_op = 'INSERT' then
          insert into %1$I (workspace_id, hour_start, %2$I, count)
          select workspace_id, %3$s, %2$I, count(*) from new_rows group by 1, 2, 3;
        elsif tg_op = 'DELETE' then
          insert into %1$I (workspace_id, hour_start, %2$I, count)
          select workspace_id, %3$s, %2$I, -count(*) from old_rows group by 1, 2, 3;
        elsif tg_op = 'UPDATE' then
          -- The net move only: an update that keeps workspace, hour and key appends nothing.
          insert into %1$I (workspace_id, hour_start, %2$I, count)
          select workspace_id, hour_start, k, sum(n)
          from (
            select workspace_id, %3$s as hour_start, %2$I as k, 1 as n from new_rows
            union all
            select workspace_id, %3$s as hour_start, %2$I as k, -1 as n from old_rows
          ) moved
          group by 1, 2, 3 having sum(n) <> 0;
        else
          -- TRUNCATE: wait until no compaction of this kind is running, then empty deltas and rollups.
          perform pg_advisory_xact_lock(metrics_rollup_lock_key(%1$L::regclass));
          delete from %1$I;
          delete from %4$I;
          delete from %5$I;
        end if;
        return null;
      end
      $fn$
  $create$,
    'metrics_deltas_' || raw,
    key_col,
    format($bin$date_bin('1 hour', %I, timestamptz '2000-01-01 00:00:00+00')$bin$, time_col),
    'metrics_hourly_' || raw,
    'metrics_daily_' || raw);

  foreach op in array array['insert', 'update', 'delete', 'truncate'] loop
    execute format('create trigger %I after %s on %I %s for each statement execute function %I()',
      format('metrics_deltas_%s_%s', raw, op), op, raw,
      case op
        when 'insert' then 'referencing new table as new_rows'
        when 'update' then 'referencing old table as old_rows new table as new_rows'
        when 'delete' then 'referencing old table as old_rows'
        else ''
      end,
      'metrics_deltas_' || raw);
  end loop;

  -- Rows written before the triggers existed (none when the raw table is new).
  execute format($q$
    insert into %1$I (workspace_id, hour, %3$I, count)
    select workspace_id, date_trunc('hour', %4$I at time zone 'UTC'), %3$I, count(*) from %5$I group by 1, 2, 3$q$,
    'metrics_hourly_' || raw, 'metrics_daily_' || raw, key_col, time_col, raw);
  execute format($q$
    insert into %2$I (workspace_id, day, %3$I, count)
    select workspace_id, hour::date, %3$I, sum(count) from %1$I group by 1, 2, 3$q$,
    'metrics_hourly_' || raw, 'metrics_daily_' || raw, key_col);
end
$install$;

select metrics_install_rollup('telemetry_events', 'event_type', 'text', 'occurred_at');
select metrics_install_rollup('workflow_executions', 'workflow_id', 'uuid', 'started_at');
select metrics_install_rollup('workflow_node_executions', 'workflow_id', 'uuid', 'started_at');
select metrics_install_rollup('alerts', 'alert_type', 'text', 'occurred_at');

drop function metrics_install_rollup(text, text, text, text);

-- Folds every visible delta into the rollups; returns how many delta rows it folded. A kind whose
-- compaction is already running elsewhere is skipped (its lock is taken), so concurrent calls never wait
-- on each other. Called by the reference server every few seconds and by the CLI after bulk loads.
create function metrics_compact_rollups() returns bigint
language plpgsql
set search_path from current
as $fn$
declare
  kind record;
  moved bigint;
  folded bigint := 0;
  -- Rollup rows whose count fell to zero (deletes, moves away), as parallel arrays of their keys.
  zero_hour_workspaces uuid[];
  zero_hours timestamp[];
  zero_hour_keys text[];
  zero_day_workspaces uuid[];
  zero_days date[];
  zero_day_keys text[];
begin
  for kind in
    select * from (values
      ('telemetry_events', 'event_type', 'text'),
      ('workflow_executions', 'workflow_id', 'uuid'),
      ('workflow_node_executions', 'workflow_id', 'uuid'),
      ('alerts', 'alert_type', 'text')
    ) as k(raw, key_col, key_type)
  loop
    if not pg_try_advisory_xact_lock(metrics_rollup_lock_key(('metrics_deltas_' || kind.raw)::regclass)) then
      continue;
    end if;
    -- One statement deletes the deltas it sees and adds their sums to both rollups, so they commit
    -- together. Every sum is an upsert (index lookups, whatever the planner thinks of the CTE sizes): a
    -- negative one always finds its row, since rollups + deltas is a raw count and never below zero.
    -- %1$I delta table, %2$I key column, %3$I hourly rollup, %4$I daily rollup.
    execute format($q$
      with moved as (
        delete from %1$I returning workspace_id, hour_start, %2$I as k, count as n
      ), hourly as (
        select workspace_id, hour_start at time zone 'UTC' as hour, k, sum(n)::bigint as n
        from moved group by 1, 2, 3 having sum(n) <> 0
      ), hourly_folded as (
        insert into %3$I as r (workspace_id, hour, %2$I, count)
        select workspace_id, hour, k, n from hourly
        on conflict (workspace_id, hour, %2$I) do update set count = r.count + excluded.count
        returning r.workspace_id, r.hour, r.%2$I as k, r.count
      ), daily_folded as (
        insert into %4$I as r (workspace_id, day, %2$I, count)
        select workspace_id, hour::date, k, sum(n)::bigint from hourly group by 1, 2, 3 having sum(n) <> 0
        on conflict (workspace_id, day, %2$I) do update set count = r.count + excluded.count
        returning r.workspace_id, r.day, r.%2$I as k, r.count
      )
      select (select count(*) from moved),
             h.workspaces, h.hours, h.keys, d.workspaces, d.days, d.keys
      from (select array_agg(workspace_id) as workspaces, array_agg(hour) as hours, array_agg(k::text) as keys
            from hourly_folded where count = 0) h,
           (select array_agg(workspace_id) as workspaces, array_agg(day) as days, array_agg(k::text) as keys
            from daily_folded where count = 0) d$q$,
      'metrics_deltas_' || kind.raw, kind.key_col, 'metrics_hourly_' || kind.raw, 'metrics_daily_' || kind.raw)
    into moved, zero_hour_workspaces, zero_hours, zero_hour_keys, zero_day_workspaces, zero_days, zero_day_keys;
    folded := folded + moved;

    -- Rows that fell to zero go, so the rollups stay sparse (a statement of its own: the one above cannot
    -- touch a row twice). %1$I rollup, %2$I its bucket column, %3$I key column, %4$s key type.
    if zero_hours is not null then
      execute format($q$
        delete from %1$I r using unnest($1, $2, $3) as z(workspace_id, bucket, k)
        where r.workspace_id = z.workspace_id and r.%2$I = z.bucket and r.%3$I = z.k::%4$s and r.count = 0$q$,
        'metrics_hourly_' || kind.raw, 'hour', kind.key_col, kind.key_type)
      using zero_hour_workspaces, zero_hours, zero_hour_keys;
    end if;
    if zero_days is not null then
      execute format($q$
        delete from %1$I r using unnest($1, $2, $3) as z(workspace_id, bucket, k)
        where r.workspace_id = z.workspace_id and r.%2$I = z.bucket and r.%3$I = z.k::%4$s and r.count = 0$q$,
        'metrics_daily_' || kind.raw, 'day', kind.key_col, kind.key_type)
      using zero_day_workspaces, zero_days, zero_day_keys;
    end if;
  end loop;
  return folded;
end
$fn$;
