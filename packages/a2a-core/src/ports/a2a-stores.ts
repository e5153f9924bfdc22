import type { EventLog } from "./event-log.js";
import type { IdempotencyStore } from "./idempotency-store.js";
import type { TaskStore } from "./task-store.js";

/** The three stores a handler runs on: in memory (`createInMemoryStores`) or durable (postgres-store). */
export interface A2AStores {
  tasks: TaskStore;
  events: EventLog;
  idempotency: IdempotencyStore;
}
