// The store contract kit (`@a2a-partner/a2a-core/testing`) as an adopter runs it: under the app's Vitest,
// against stores of its own (here the package's in-memory ones).
import { createInMemoryStores } from "@a2a-partner/a2a-core";
import { defineStoreContractTests, type StoreContractContext, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { beforeAll, describe } from "vitest";

describe("in-memory stores, from the published package", () => {
  let context: StoreContractContext;
  beforeAll(() => {
    const stores = createInMemoryStores();
    context = {
      stores,
      otherStores: stores,
      workspaceA: crypto.randomUUID(),
      workspaceB: crypto.randomUUID(),
      fixtures: storeFixtures(),
    };
  });
  defineStoreContractTests(() => context);
});
