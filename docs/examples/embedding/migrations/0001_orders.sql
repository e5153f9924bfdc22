-- An application's own table, migrated after the store's and the metrics' (docs/embedding.md, "Stores").
create table if not exists my_app_orders (
  id uuid primary key,
  task_id uuid not null references tasks (id) on delete cascade,
  created_at timestamptz not null default now()
);
