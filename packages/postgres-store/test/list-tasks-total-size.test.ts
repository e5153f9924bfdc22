import { randomUUID } from "node:crypto";
import { A2A_LIMITS } from "@a2a-partner/a2a-core";
import { postgresAvailable } from "@a2a-partner/test-support/postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listTasksPage } from "../src/stores/list-tasks-query.js";
import { type MigratedBackend, openMigratedBackend } from "./support/migrated-backend.js";

// ListTasks counted totalSize over every matching task on every page: time in proportion to a workspace's
// whole history. The count stops at A2A_LIMITS.listTotalSize; the pages are not bounded by it.
const CAP = A2A_LIMITS.listTotalSize;
const reachable = await postgresAvailable();

describe.each(["pglite", "postgres"] as const)("ListTasks' totalSize on %s", (kind) => {
  let backend: MigratedBackend;
  const workspaceId = randomUUID();
  beforeAll(async () => {
    if (kind === "postgres" && !reachable && !process.env.CI) return;
    backend = await openMigratedBackend(kind, "total_size");
    // Past the cap: running tasks (and ended ones, the other part of the count), written as rows directly
    // (the stored shape is A2A v0.3's, stored-shapes.ts).
    await backend.db.query(
      `insert into tasks (id, workspace_id, context_id, snapshot, state, terminal, status_at, final_status_at)
       select id, $1::uuid, 'ctx', jsonb_build_object('id', id, 'contextId', 'ctx', 'kind', 'task',
                'status', jsonb_build_object('state', state, 'timestamp', '2026-01-01T00:00:00.000Z'),
                'history', '[]'::jsonb, 'artifacts', '[]'::jsonb, 'metadata', jsonb_build_object('storeId', 's')),
              state, state = 'completed', '2026-01-01T00:00:00Z', case when state = 'completed' then '2026-01-01T00:00:00Z'::timestamptz end
         from (select gen_random_uuid() as id, case when n % 2 = 0 then 'working' else 'completed' end as state
                 from generate_series(1, $2::int) as n) as rows`,
      [workspaceId, CAP + 7],
    );
  }, 120_000);
  afterAll(async () => backend?.drop());

  it("stops counting at the cap; the pages go on", async (context) => {
    if (!backend) return context.skip();
    const first = await listTasksPage(backend.db, workspaceId, { pageSize: 100 });
    expect(first.totalSize).toBe(CAP);
    expect(first.tasks).toHaveLength(100);
    expect(first.next).toBeDefined();
    const running = await listTasksPage(backend.db, workspaceId, { pageSize: 1, state: "TASK_STATE_WORKING" });
    // Under the cap: counted exactly (5,003 of the rows are running).
    expect(running.totalSize).toBe(Math.floor((CAP + 7) / 2));
    const few = await listTasksPage(backend.db, workspaceId, { pageSize: 1, contextId: "elsewhere" });
    expect(few.totalSize).toBe(0);
  }, 60_000);
});
