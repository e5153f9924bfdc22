import { beforeAll, describe } from "vitest";
import { createInMemoryStores } from "../src/index.js";
import { defineStoreContractCases, type StoreContractContext } from "./support/store-contract-suite.js";
import { storeFixtures } from "./support/store-fixtures.js";

// The in-memory stores against the same contract the PostgreSQL and PGlite stores run (postgres-store's
// test/support/store-suite.ts). One process, one instance: the "other" instance is the same stores.
describe("in-memory stores", () => {
  let context: StoreContractContext;
  beforeAll(() => {
    const stores = createInMemoryStores();
    context = { stores, otherStores: stores, workspaceA: "ws-a", workspaceB: "ws-b", fixtures: storeFixtures() };
  });
  defineStoreContractCases(() => context);
});
