import { createA2AHandler, createInMemoryStores, type EnvironmentExecutor } from "@a2a-partner/a2a-core";
import { authenticate } from "../context.ts";

const stores = createInMemoryStores();
// Robots in Environments: their context has storeId and text.
const robots: EnvironmentExecutor = {
  hasEnvironment: async (_workspaceId, storeId) => storeId.startsWith("store-"),
  execute: async ({ storeId, text }) => ({ state: "TASK_STATE_COMPLETED", message: `${text} in ${storeId}` }),
};

// #region snippet
import { environmentExecutor } from "@a2a-partner/a2a-core";

const handler = createA2AHandler({ stores, executor: environmentExecutor(robots), authenticate }); // not: robots
// #endregion snippet

export { handler };
