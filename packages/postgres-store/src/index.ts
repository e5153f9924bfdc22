export { createPostgresStores, type PostgresStores } from "./create-postgres-stores.js";
export {
  type DataDirectoryLock,
  DataDirectoryLockedError,
  isDataDirectoryLockedError,
  LOCK_FILE_NAME,
  type LockHolder,
  lockDataDirectory,
} from "./data-directory-lock.js";
export { asRequestDataError, isDataError } from "./internal/data-error.js";
export type { Database, Queryable, QueryResult } from "./database.js";
export { GroupCommitWriter } from "./group-commit-writer.js";
export { type MigrateOptions, type MigrateResult, migrate } from "./migrate.js";
export { loadMigrations, type Migration } from "./internal/migration-files.js";
export { defaultMigrationsDir } from "./migrations-dir.js";
export { DEFAULT_PGLITE_DATA_DIR, type OpenDatabaseOptions, openDatabase } from "./open-database.js";
export { type PGliteDatabaseOptions, pgliteDatabase } from "./pglite-database.js";
export { PostgresEventLog, type PostgresEventLogOptions, TASK_EVENTS_CHANNEL } from "./postgres-event-log.js";
export { PostgresIdempotencyStore } from "./postgres-idempotency-store.js";
export { PostgresTaskStore } from "./postgres-task-store.js";
