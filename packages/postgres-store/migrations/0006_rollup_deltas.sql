-- 0006_rollup_deltas: the rollup triggers append deltas; a compaction folds them into the rollups.
--
-- 0002's triggers upserted every statement's counts into the daily and hourly rollups in the writer's own
-- transaction. That cost 17-21 % of insert throughput, and every writer locked the same current-hour and
-- current-day rollup rows until it committed, so concurrent writers (several server instances on one
-- database) waited on each other. Here the triggers only INSERT: each raw statement appends its counts per
-- (workspace, UTC hour, key) to `metrics_deltas_<raw table>`, with no index, no ON CONFLICT and no row
-- that another writer could hold. Deletes append negative counts; an update appends its net move (nothing
-- for a status change). Only hourly deltas are written: the daily counts follow from them at compaction.
--
-- `metrics_compact_rollups()` folds the deltas into `metrics_daily_*` / `metrics_hourly_*` (0002's tables,
-- unchanged): per kind, one statement deletes the deltas it sees and applies their sums to both rollups
-- (a second one removes the rollup rows that fell to zero).
-- A query reads rollups plus the deltas not folded yet (metrics-core's query builder), so in any snapshot
-- rollups + deltas = the raw count, before, during and after a compaction: the compaction's delete and its
-- rollup changes commit together, and a writer's deltas commit with its raw rows.
--
-- Compactions of one kind never run at once: each takes a transaction-scoped advisory lock on the kind
-- (pg_try_: a busy kind is skipped, its deltas wait for the next run), so servers can all run it on a
-- timer. A TRUNCATE of a raw table waits for that lock before emptying the kind's deltas and rollups, so
-- a compaction can never commit rollup rows the truncate did not see. (As in 0002, in READ COMMITTED.)
--
-- The trigger functions are generated per kind (below) so their statements are static: PL/pgSQL plans
-- them once per session instead of parsing and planning a dynamic EXECUTE on every raw statement, which
-- cost about 40 µs a statement, most of the trigger's cost for the small multi-row inserts of a live
-- writer. Hours are binned with date_bin on the timestamptz (integer arithmetic, the same UTC hours as
-- 0002's date_trunc('hour', t at time zone 'UTC') for every instant, infinity included, but several
-- times cheaper per row) and stored as the hour's first instant; the compaction turns them into 0002's
-- UTC wall-clock hours.

-- The advisory-lock key of one kind: a tag in the high half and the delta table's OID in the low half, so
-- kinds and schemas never share a key (advisory locks are per database already) and nothing else in this
-- project uses the tag.
create function metrics_rollup_lock_key(deltas regclass) returns bigint
language sql immutable
as $$ select (1835365490::bigint << 32) | deltas::oid::bigint $$;  -- 1835365490 = 'metr'

create table metrics_deltas_telemetry_events (
  workspace_id uuid not null,
  hour_start timestamptz not null,
  event_type text not null,
  count bigint not null
);

create table metrics_deltas_workflow_executions (
  workspace_id uuid not null,
  hour_start timestamptz not null,
  workflow_id uuid not null,
  count bigint not null
);

create table metrics_deltas_workflow_node_executions (
  workspace_id uuid not null,
  hour_start timestamptz not null,
  workflow_id uuid not null,
  count bigint not null
);

create table metrics_deltas_alerts (
  workspace_id uuid not null,
  hour_start timestamptz not null,
  alert_type text not null,
  count bigint not null
);

do $do$
declare
  kind record;
  op text;
begin
  for kind in
    select * from (values
      ('telemetry_events', 'event_type', 'occurred_at'),
      ('workflow_executions', 'workflow_id', 'started_at'),
      ('workflow_node_executions', 'workflow_id', 'started_at'),
      ('alerts', 'alert_type', 'occurred_at')
    ) as k(raw, key_col, time_col)
  loop
    -- Rows come and go all the time: vacuum must not take the exclusive lock that truncating the table's
    -- empty tail needs, which would make writers' delta inserts wait.
    execute format('alter table %I set (vacuum_truncate = false)', 'metrics_deltas_' || kind.raw);

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
      'metrics_deltas_' || kind.raw,
      kind.key_col,
      format($bin$date_bin('1 hour', %I, timestamptz '2000-01-01 00:00:00+00')$bin$, kind.time_col),
      'metrics_hourly_' || kind.raw,
      'metrics_daily_' || kind.raw);

    foreach op in array array['insert', 'update', 'delete', 'truncate'] loop
      execute format('drop trigger %I on %I', format('metrics_rollup_%s_%s', kind.raw, op), kind.raw);
      execute format('create trigger %I after %s on %I %s for each statement execute function %I()',
        format('metrics_deltas_%s_%s', kind.raw, op), op, kind.raw,
        case op
          when 'insert' then 'referencing new table as new_rows'
          when 'update' then 'referencing old table as old_rows new table as new_rows'
          when 'delete' then 'referencing old table as old_rows'
          else ''
        end,
        'metrics_deltas_' || kind.raw);
    end loop;
  end loop;
end
$do$;

-- 0002's trigger function has no triggers left.
drop function metrics_rollup();

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
