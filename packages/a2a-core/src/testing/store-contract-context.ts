import type { A2AStores } from "../ports/a2a-stores.js";
import type { StoreFixtures } from "./store-fixtures.js";

/**
 * The stores of one implementation under test. `otherStores` is a second instance over the same data
 * (another process's view); an implementation that has only one instance passes the same stores twice.
 * The two workspace ids must be valid for the stores (a durable store may require UUIDs).
 */
export interface StoreContractContext {
  stores: A2AStores;
  otherStores: A2AStores;
  workspaceA: string;
  workspaceB: string;
  /** Builds the tasks and events the cases write (`storeFixtures()`). */
  fixtures: StoreFixtures;
}
