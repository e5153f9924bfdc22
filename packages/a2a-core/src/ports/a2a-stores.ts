import type { EventLog } from "./event-log.js";
import type { IdempotencyStore } from "./idempotency-store.js";
import type { PushConfigStore } from "./push-configs.js";
import type { PushDeliveryQueue } from "./push-deliveries.js";
import type { TaskStore } from "./task-store.js";

/** The three stores a handler runs on: in memory (`createInMemoryStores`) or durable (postgres-store). */
export interface A2AStores {
  tasks: TaskStore;
  events: EventLog;
  idempotency: IdempotencyStore;
  /**
   * Push notifications (A2A push configs and their durable deliveries). Without it the push-config
   * methods answer -32003 and the card says `pushNotifications: false`.
   */
  push?: A2APushStores;
  /**
   * Why these stores cannot hold `workspaceId` (e.g. "must be a UUID"), or undefined when they can. The
   * handler asks it of every id `authenticate` returns, so a misconfigured `authenticate` is refused at
   * once with the field named, instead of failing inside the stores as a retryable outage.
   */
  checkWorkspaceId?(workspaceId: string): string | undefined;
}

/** The push side of the stores: configs, and the deliveries the event log writes with each event. */
export interface A2APushStores {
  configs: PushConfigStore;
  deliveries: PushDeliveryQueue;
}
