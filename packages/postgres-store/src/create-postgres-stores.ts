import type { Database } from "./database.js";
import { PostgresEventLog, type PostgresEventLogOptions } from "./postgres-event-log.js";
import { PostgresIdempotencyStore } from "./postgres-idempotency-store.js";
import { PostgresTaskStore } from "./postgres-task-store.js";

export interface PostgresStores {
  tasks: PostgresTaskStore;
  events: PostgresEventLog;
  idempotency: PostgresIdempotencyStore;
}

/** The three stores over one database (migrated first: see `migrate`). */
export function createPostgresStores(db: Database, options: PostgresEventLogOptions = {}): PostgresStores {
  return {
    tasks: new PostgresTaskStore(db),
    events: new PostgresEventLog(db, options),
    idempotency: new PostgresIdempotencyStore(db),
  };
}
