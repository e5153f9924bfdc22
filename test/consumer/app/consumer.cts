// A TypeScript consumer in CommonJS (`.cts`: `import` compiles to `require`, so the `require` condition's
// declarations are the ones checked). Type-checked only; consumer.cjs runs the same requires.
import { A2AClient } from "@a2a-partner/a2a-client";
import { createA2AHandler, createInMemoryStores, type TaskExecutor, toFetchHandler } from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";
// The store contract kit is ESM only (as Vitest is): TypeScript refuses it from CommonJS too.
// @ts-expect-error TS1479: an ECMAScript module cannot be imported with require()
import type { StoreContractContext } from "@a2a-partner/a2a-core/testing";
import { parseMetricsWindow } from "@a2a-partner/metrics-core";
import { createPostgresStores, openDatabase } from "@a2a-partner/postgres-store";

const executor: TaskExecutor = { execute: async () => ({ state: "TASK_STATE_COMPLETED" }) };
const handler = createA2AHandler({
  stores: createInMemoryStores(),
  executor,
  authenticate: async () => ({ ok: true, workspaceId: "w" }),
});
export const used = [
  A2AClient,
  toFetchHandler(handler),
  toNodeHandler(handler),
  parseMetricsWindow,
  createPostgresStores,
  openDatabase,
];
export type Unused = StoreContractContext;
