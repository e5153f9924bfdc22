/**
 * The store's own migrations, in order, as `schema_migrations` records them: one list for the suites that
 * check what `migrate` applied, so adding a migration means adding it here once.
 */
export const STORE_MIGRATION_FILES = [
  "a2a-store/0001_tasks",
  "a2a-store/0002_no_statistics_on_json",
  "a2a-store/0003_list_ended_tasks_by_index",
  "a2a-store/0004_lease_renewals_heap_only",
  "a2a-store/0005_status_at_from_the_writer",
  "a2a-store/0006_first_message_written_once",
  "a2a-store/0007_ended_tasks_by_end",
  "a2a-store/0008_push_notifications",
  "a2a-store/0009_pooled_statements",
] as const;
