import type { Database } from "./database.js";
import { isUuid } from "./is-uuid.js";
import { PostgresPushConfigStore } from "./push/postgres-push-config-store.js";
import { PostgresPushDeliveryQueue } from "./push/postgres-push-delivery-queue.js";
import { PostgresEventLog, type PostgresEventLogOptions } from "./stores/postgres-event-log.js";
import { PostgresIdempotencyStore } from "./stores/postgres-idempotency-store.js";
import { PostgresTaskStore } from "./stores/postgres-task-store.js";

export interface PostgresStores {
  tasks: PostgresTaskStore;
  events: PostgresEventLog;
  idempotency: PostgresIdempotencyStore;
  /** Push notifications: configs, and the deliveries the event log writes with each event. */
  push: PostgresPushStores;
  /** Workspace ids are `uuid` columns: anything else is refused when `authenticate` returns it. */
  checkWorkspaceId(workspaceId: string): string | undefined;
}

/** The push side of `PostgresStores` (a2a-core's `A2APushStores`). */
export interface PostgresPushStores {
  configs: PostgresPushConfigStore;
  deliveries: PostgresPushDeliveryQueue;
}

/**
 * The stores over one database (migrated first: see `migrate`). Task starts asked for while the event
 * log's group commit is busy ride its next commit (see `PostgresIdempotencyStore`). Push is always there:
 * a handler turns it off with `push: false` (then no config is ever stored, and no delivery written).
 */
export function createPostgresStores(db: Database, options: PostgresEventLogOptions = {}): PostgresStores {
  const events = new PostgresEventLog(db, options);
  return {
    tasks: new PostgresTaskStore(db),
    events,
    idempotency: new PostgresIdempotencyStore(db, { writer: events.writer }),
    push: { configs: new PostgresPushConfigStore(db), deliveries: new PostgresPushDeliveryQueue(db) },
    checkWorkspaceId: (workspaceId) =>
      isUuid(workspaceId) ? undefined : "must be a UUID (postgres-store keeps workspace ids in uuid columns)",
  };
}
