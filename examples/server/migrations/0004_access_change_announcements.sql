-- 0004_access_change_announcements: every change to who may read what (tokens, memberships, ACLs,
-- workspaces) announces its transaction id on `a2a_access_changes`. With a read replica, the access
-- checks of the metrics endpoint read there only when the replica shows every change so announced
-- (postgres-store's ReplicaFence): a revocation is never hidden by replica lag.
-- A channel of its own: a2a_cache_changes keeps its payload (the table name) for instances still running
-- the previous release during a rolling deploy.

create function a2a_announce_access_change() returns trigger
language plpgsql as $$
begin
  perform pg_notify('a2a_access_changes', pg_current_xact_id()::text);
  return null;
end;
$$;

create trigger api_tokens_access_change after insert or update or delete or truncate on api_tokens
  for each statement execute function a2a_announce_access_change();
create trigger memberships_access_change after insert or update or delete or truncate on memberships
  for each statement execute function a2a_announce_access_change();
create trigger workspace_acl_access_change after insert or update or delete or truncate on workspace_acl
  for each statement execute function a2a_announce_access_change();
create trigger workspaces_access_change after insert or update or delete or truncate on workspaces
  for each statement execute function a2a_announce_access_change();
