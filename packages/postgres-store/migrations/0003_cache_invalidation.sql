-- 0003_cache_invalidation: every change to a table that servers cache in memory is announced.
-- A statement that changes api_tokens, environments, robots or workflows (any path: the CLI, the control
-- socket, psql, a migration) NOTIFYs 'a2a_cache_changes' with the table's name when it commits, and
-- every instance drops what it cached from that table. Revoking a token therefore reaches every
-- instance's token cache with the commit that revoked it.

create function a2a_announce_cache_change() returns trigger
language plpgsql as $$
begin
  perform pg_notify('a2a_cache_changes', tg_table_name);
  return null;
end;
$$;

create trigger api_tokens_cache_change after insert or update or delete or truncate on api_tokens
  for each statement execute function a2a_announce_cache_change();
create trigger environments_cache_change after insert or update or delete or truncate on environments
  for each statement execute function a2a_announce_cache_change();
create trigger robots_cache_change after insert or update or delete or truncate on robots
  for each statement execute function a2a_announce_cache_change();
create trigger workflows_cache_change after insert or update or delete or truncate on workflows
  for each statement execute function a2a_announce_cache_change();
