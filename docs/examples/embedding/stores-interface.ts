import type * as Core from "@a2a-partner/a2a-core";
import type { EventLog, IdempotencyStore, PushConfigStore, PushDeliveryQueue, TaskStore } from "@a2a-partner/a2a-core";
import { type Equal, sameType } from "../type-equal.ts";

// #region snippet
interface A2AStores {
  tasks: TaskStore; // task snapshots, leases (by the store's clock), orphan listing
  events: EventLog; // the per-task event log (append, appendNumbered, readAfter, watch)
  idempotency: IdempotencyStore; // every start: (workspace, messageId) → its one task; no messageId → new
  push?: { configs: PushConfigStore; deliveries: PushDeliveryQueue }; // push notifications, optional
  checkWorkspaceId?(workspaceId: string): string | undefined; // why an id cannot be stored ("must be a UUID")
}
// #endregion snippet

sameType<Equal<A2AStores, Core.A2AStores>>();
