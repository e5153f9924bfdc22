// The public surface of @a2a-partner/postgres-store, name by name. Anything not listed here is internal
// (see src/internal/) and may change in any release; api/postgres-store.api.md is the reviewed report of it.

export { createPostgresStores, type PostgresStores } from "./create-postgres-stores.js";
export {
  type DataDirectoryLock,
  DataDirectoryLockedError,
  isDataDirectoryLockedError,
  LOCK_FILE_NAME,
  LOCK_STALE_MS,
  type LockDataDirectoryOptions,
  type LockHolder,
  lockDataDirectory,
} from "./data-directory-lock.js";
export type { Database, Queryable, QueryOptions, QueryResult } from "./database.js";
export { GroupCommitWriter } from "./group-commit-writer.js";
export { isUuid } from "./is-uuid.js";
export { type MigrateOptions, type MigrateResult, type MigrationSource, migrate } from "./migrate.js";
export { defaultMigrationsDir, storeMigrations } from "./migrations-dir.js";
export { DEFAULT_PGLITE_DATA_DIR, type OpenDatabaseOptions, openDatabase } from "./open-database.js";
export {
  type PGliteAutovacuumOptions,
  type PGliteCheckpointsOptions,
  type PGliteDatabaseOptions,
  pgliteDatabase,
} from "./pglite-database.js";
export type { PGliteWorkerEvents } from "./pglite-worker-database.js";
export { PostgresEventLog, type PostgresEventLogOptions } from "./postgres-event-log.js";
export { PostgresIdempotencyStore, type PostgresIdempotencyStoreOptions } from "./postgres-idempotency-store.js";
export { PostgresTaskStore } from "./postgres-task-store.js";
