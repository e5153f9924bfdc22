import type { Database } from "./database.js";
import { PostgresEventLog, type PostgresEventLogOptions } from "./stores/postgres-event-log.js";
import { PostgresIdempotencyStore } from "./stores/postgres-idempotency-store.js";
import { PostgresTaskStore } from "./stores/postgres-task-store.js";

export interface PostgresStores {
  tasks: PostgresTaskStore;
  events: PostgresEventLog;
  idempotency: PostgresIdempotencyStore;
}

/**
 * The three stores over one database (migrated first: see `migrate`). On PGlite, whose one connection runs
 * every statement in turn, task starts ride the event log's group commits as well.
 */
export function createPostgresStores(db: Database, options: PostgresEventLogOptions = {}): PostgresStores {
  const events = new PostgresEventLog(db, options);
  return {
    tasks: new PostgresTaskStore(db),
    events,
    idempotency: new PostgresIdempotencyStore(db, db.kind === "pglite" ? { writer: events.writer } : {}),
  };
}
