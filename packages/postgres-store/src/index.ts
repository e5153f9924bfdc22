// The public surface of @a2a-partner/postgres-store, name by name. Anything not listed here is internal, not
// covered by semver, and may change or move in any release; api/postgres-store.api.md is the reviewed report of it.

export { CacheInvalidation, type CacheInvalidationOptions, InvalidatedCache } from "./cache/cache-invalidation.js";
export { RecentMisses, type RecentMissesOptions, sharedLoads } from "./cache/recent-misses.js";
export { ReplicaFence, type ReplicaFenceOptions } from "./cache/replica-fence.js";
export { createPostgresStores, type PostgresPushStores, type PostgresStores } from "./create-postgres-stores.js";
export type { Database, Queryable, QueryOptions, QueryResult } from "./database.js";
export { isUuid } from "./is-uuid.js";
export { LEGACY_MIGRATION_SERIES } from "./migrations/legacy-series.js";
export { type MigrateOptions, type MigrateResult, migrate } from "./migrations/migrate.js";
export type { MigrationSource } from "./migrations/migration-files.js";
export { defaultMigrationsDir, storeMigrations } from "./migrations/migrations-dir.js";
export { DEFAULT_PGLITE_DATA_DIR, type OpenDatabaseOptions, openDatabase } from "./open-database.js";
export {
  type DataDirectoryLock,
  DataDirectoryLockedError,
  isDataDirectoryLockedError,
  LOCK_FILE_NAME,
  LOCK_STALE_MS,
  type LockDataDirectoryOptions,
  type LockHolder,
  lockDataDirectory,
} from "./pglite/data-directory-lock.js";
export { type OpenAsServerOptions, openAsServer } from "./pglite/open-as-server.js";
export {
  type PGliteAutovacuumOptions,
  type PGliteCheckpointsOptions,
  type PGliteDatabaseOptions,
  pgliteDatabase,
} from "./pglite/pglite-database.js";
export type { PGliteWorkerEvents } from "./pglite/pglite-worker-database.js";
export { type RetryWhileLockedOptions, retryWhileLocked } from "./pglite/retry-while-locked.js";
export { PostgresPushConfigStore } from "./push/postgres-push-config-store.js";
export {
  PostgresPushDeliveryQueue,
  type PostgresPushDeliveryQueueOptions,
} from "./push/postgres-push-delivery-queue.js";
export { PUSH_SIGNING_SECRETS_TABLE_SQL } from "./push/push-signing-secrets-table.js";
export { PUSH_DELIVERIES_CHANNEL } from "./push/push-wakeups.js";
export {
  currentSigningSecret,
  newSigningSecret,
  retireOldSigningSecrets,
  rotateSigningSecret,
  type StoredSigningSecret,
  signingSecretsOf,
} from "./push/signing-secrets.js";
export {
  SIGNING_SECRETS_MAX_AGE_MS,
  type WorkspaceSigningSecretsOptions,
  workspaceSigningSecrets,
} from "./push/workspace-signing-secrets.js";
export {
  type PruneEndedTasksOptions,
  type PruneEndedTasksResult,
  pruneEndedTasks,
} from "./retention/prune-ended-tasks.js";
export { startTaskPruning, TASK_PRUNING_INTERVAL_MS, type TaskPruningOptions } from "./retention/task-pruning.js";
export {
  type ConfiguredDatabaseLogger,
  type ConfiguredDatabaseOptions,
  openConfiguredDatabase,
  postgresPoolOptions,
} from "./settings/configured-database.js";
export { type DatabaseConnections, databaseConnections, postgresUrlSetting } from "./settings/database-settings.js";
export { runStoreCommand, type StoreCommand, type StoreCommandOptions } from "./settings/store-command.js";
export { PostgresEventLog, type PostgresEventLogOptions } from "./stores/postgres-event-log.js";
export { PostgresIdempotencyStore, type PostgresIdempotencyStoreOptions } from "./stores/postgres-idempotency-store.js";
export { PostgresTaskStore } from "./stores/postgres-task-store.js";
export type { GroupCommitRow } from "./writer/batch-statement.js";
export { GroupCommitWriter, type GroupCommitWriterOptions } from "./writer/group-commit-writer.js";
