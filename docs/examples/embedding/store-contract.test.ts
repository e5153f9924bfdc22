import { defineStoreContractTests, type StoreContractContext, storeFixtures } from "@a2a-partner/a2a-core/testing";
import { beforeAll, describe } from "vitest";
import { openMyStores } from "./my-stores.js";

describe("my stores", () => {
  let context: StoreContractContext;
  beforeAll(async () => {
    const stores = await openMyStores();
    // otherStores: a second instance over the same data (another process's view), or the same stores
    // when yours run in one process only. Workspace ids must be valid for your stores (UUIDs for ours).
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
