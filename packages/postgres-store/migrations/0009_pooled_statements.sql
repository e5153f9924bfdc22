-- 0009_pooled_statements: two hot statements as PL/pgSQL functions, for servers behind a transaction
-- pooler: the start (tasks/insert-task.ts, a start without push configs) and the read of a task's events
-- after a sequence number (stores/postgres-event-log.ts, what every stream on another instance reads).
--
-- Through PgBouncer in transaction mode (before 1.21) no named statement outlives its transaction, so
-- every statement is sent unnamed and PostgreSQL parses and plans it on every call: for the start
-- statement about 0.3 ms of a start's 1 ms (bench/scale/pooled-functions.ts). A PL/pgSQL function
-- keeps its statements' plans for the server session, which the pooler keeps open, so a pooled server
-- sends only `select * from a2a_start_task(...)`, parsed in microseconds. Direct connections keep the
-- named statements, which are quicker still.
--
-- Each body is the store's statement with $n as pn, character for character: a test compares them, so a
-- change to a statement comes with a migration that replaces its function. The parameters and the
-- result columns are the statement's. `use_column`: a name that is both a result column and a table
-- column (id, created_at …) means the table's column inside the body.

create function a2a_start_task(
  p1 uuid, p2 uuid, p3 text, p4 text, p5 jsonb, p6 text, p7 boolean, p8 text, p9 double precision,
  p10 timestamptz, p11 timestamptz
) returns table (
  created boolean, id uuid, workspace_id uuid, message_id text, snapshot jsonb, last_seq integer,
  lease_owner text, lease_expires_at timestamptz, created_at timestamptz, first_message jsonb
) language plpgsql as $fn$
#variable_conflict use_column
begin
  return query
with created as (
  insert into tasks
    (id, workspace_id, context_id, message_id, snapshot, first_message, state, terminal, last_seq, lease_owner,
     lease_expires_at, created_at, updated_at, status_at, final_status_at)
  values (p1, p2, p3, p4, case when jsonb_typeof(p5::jsonb #> '{history,0}') = 'object' then p5::jsonb #- '{history,0}' else p5::jsonb end, case when jsonb_typeof(p5::jsonb #> '{history,0}') = 'object' then p5::jsonb #> '{history,0}' end, p6, p7, 1, p8,
          now() + p9::double precision * interval '1 millisecond',
          p10::timestamptz, p10::timestamptz, p11::timestamptz, case when p7 then p11::timestamptz end)
  on conflict (workspace_id, message_id) do nothing
  returning id, workspace_id, message_id, snapshot, last_seq, lease_owner, lease_expires_at, created_at, first_message
), first_event as (
  insert into task_events (task_id, seq, event, result, created_at)
  select id, 1, 'task', snapshot, created_at from created
)
select true as created, id, workspace_id, message_id, null::jsonb as snapshot, last_seq, lease_owner, lease_expires_at, created_at, null::jsonb as first_message from created
union all
select false as created, id, workspace_id, message_id, snapshot, last_seq, lease_owner, lease_expires_at, created_at, first_message from tasks
 where workspace_id = p2 and message_id = p4 and not exists (select 1 from created);
end
$fn$;

create function a2a_read_events(p1 uuid, p2 integer, p3 integer) returns table (
  task_id uuid, seq integer, event text, result jsonb, created_at timestamptz, first_message jsonb
) language plpgsql stable as $fn$
#variable_conflict use_column
begin
  return query
select e.task_id, e.seq, e.event, e.result, e.created_at, case when e.seq = 1 then (select t.first_message from tasks t where t.id = e.task_id) end as first_message from task_events e where e.task_id = p1 and e.seq > p2 order by e.seq limit p3;
end
$fn$;
