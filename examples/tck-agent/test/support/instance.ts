import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { createA2AHandler } from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";
import { createPostgresStores, openDatabase } from "@a2a-partner/postgres-store";

// One instance of an agent on a shared, migrated PostgreSQL (DATABASE_URL): each task works WORK_MS, its
// lease lasts LEASE_MS. It prints its URL, then `run <taskId>` each time it starts executing a task.
const db = await openDatabase({ url: process.env.DATABASE_URL as string });
const handler = createA2AHandler({
  stores: createPostgresStores(db),
  executor: {
    async execute({ taskId, signal }) {
      console.log(`run ${taskId}`);
      await sleep(Number(process.env.WORK_MS), undefined, { signal }).catch(() => undefined);
      return { state: "TASK_STATE_COMPLETED", message: "done" };
    },
  },
  authenticate: async () => ({ ok: true, workspaceId: "00000000-0000-4000-8000-0000000000a1" }),
  leaseMs: Number(process.env.LEASE_MS),
  logger: { info() {}, warn() {}, error() {} },
});
const server = createServer(toNodeHandler(handler));
server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`));
