-- 0002_workspace_default_environment: a workspace may name one of its Environments as its default
-- (`pnpm cli environment default --workspace <slug> <storeId>`), for requests that name no store. Nothing
-- reads it yet; the column is nullable, so existing workspaces keep having none. The pair key makes the
-- database itself refuse a default that belongs to another workspace, and deleting the Environment clears
-- the default rather than failing.

alter table environments add constraint environments_id_workspace_key unique (id, workspace_id);

alter table workspaces add column default_environment_id uuid null;

alter table workspaces add constraint workspaces_default_environment_fkey
  foreign key (default_environment_id, id) references environments (id, workspace_id)
  on delete set null (default_environment_id);
