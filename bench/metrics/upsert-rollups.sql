-- The metrics triggers of the first rollup design, for bench/metrics/contention.ts only: every raw
-- statement upserts its counts straight into the daily and hourly rollups in the writer's transaction
-- (no deltas). Run after the reference schema's migrations; it swaps each raw table's delta triggers for
-- these. The shipped migrations no longer contain this design: the bench keeps it to measure against.

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

-- Points each raw table's delta triggers at the upsert function instead: the same events and transition
-- tables, read back from the catalog (pg_get_triggerdef), so nothing of the migrated triggers is restated
-- here; only the function each trigger runs, and its name, change.
do $swap$
declare
  t record;
begin
  for t in
    select tg.oid, tg.tgname, k.raw, k.key_col, k.time_col
      from pg_trigger tg
      join pg_class c on c.oid = tg.tgrelid and c.relnamespace = current_schema()::regnamespace
      join (values ('telemetry_events', 'event_type', 'occurred_at'),
                   ('workflow_executions', 'workflow_id', 'started_at'),
                   ('workflow_node_executions', 'workflow_id', 'started_at'),
                   ('alerts', 'alert_type', 'occurred_at')) as k(raw, key_col, time_col) on k.raw = c.relname
     where not tg.tgisinternal and tg.tgname like 'metrics\_deltas\_%'
  loop
    execute replace(
      replace(pg_get_triggerdef(t.oid),
        format('metrics_deltas_%s()', t.raw),
        format('metrics_rollup(%L, %L, %L, %L)', t.key_col, t.time_col, 'metrics_daily_' || t.raw, 'metrics_hourly_' || t.raw)),
      'CREATE TRIGGER ' || t.tgname,
      'CREATE TRIGGER ' || replace(t.tgname, 'metrics_deltas_', 'metrics_rollup_'));
    execute format('drop trigger %I on %I', t.tgname, t.raw);
  end loop;
end
$swap$;
