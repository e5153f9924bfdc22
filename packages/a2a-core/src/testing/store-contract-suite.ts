import { describe } from "vitest";
import { defineAppendDependencyCases } from "./append-dependency-cases.js";
import { defineEventLogCases } from "./event-log-cases.js";
import { defineIdempotencyStoreCases } from "./idempotency-store-cases.js";
import { defineListTasksCases } from "./list-tasks-cases.js";
import { definePushConfigCases } from "./push-config-cases.js";
import { definePushDeliveryCases } from "./push-delivery-cases.js";
import { defineRecordCopiesCases } from "./record-copies-cases.js";
import type { StoreContractContext } from "./store-contract-context.js";
import { defineTaskStoreCases } from "./task-store-cases.js";

/**
 * The store contract: what every `TaskStore`, `EventLog` and `IdempotencyStore` must do, whatever keeps
 * the data, and, for stores with a push side (`stores.push`), its `PushConfigStore` and
 * `PushDeliveryQueue` (skipped without one). The in-memory stores and the PostgreSQL/PGlite stores run these same cases; run them against
 * your own stores under Vitest, inside a `describe` whose `beforeAll` fills the context:
 *
 * ```ts
 * describe("my stores", () => {
 *   let context: StoreContractContext;
 *   beforeAll(async () => {
 *     const stores = await openMyStores();
 *     context = { stores, otherStores: stores, workspaceA: "ws-a", workspaceB: "ws-b", fixtures: storeFixtures() };
 *   });
 *   defineStoreContractTests(() => context);
 * });
 * ```
 */
export function defineStoreContractTests(current: () => StoreContractContext): void {
  describe("store contract", () => {
    defineTaskStoreCases(current);
    defineEventLogCases(current);
    defineAppendDependencyCases(current);
    defineIdempotencyStoreCases(current);
    defineRecordCopiesCases(current);
    defineListTasksCases(() => {
      const { stores, workspaceA, workspaceB, fixtures } = current();
      return { tasks: stores.tasks, events: stores.events, workspaceA, workspaceB, fixtures };
    });
    definePushConfigCases(current);
    definePushDeliveryCases(current);
  });
}
