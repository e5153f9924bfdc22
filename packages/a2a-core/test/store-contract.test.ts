import { beforeAll, describe } from "vitest";
import { createInMemoryStores } from "../src/index.js";
import { defineStoreContractTests, type StoreContractContext, storeFixtures } from "../src/testing.js";

// The in-memory stores against the same contract the PostgreSQL and PGlite stores run (postgres-store's
// test/support/store-suite.ts). One process, one instance: the "other" instance is the same stores.
describe("in-memory stores", () => {
  let context: StoreContractContext;
  beforeAll(() => {
    const stores = createInMemoryStores();
    context = { stores, otherStores: stores, workspaceA: "ws-a", workspaceB: "ws-b", fixtures: storeFixtures() };
  });
  defineStoreContractTests(() => context);
});
