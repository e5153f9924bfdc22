import { randomUUID } from "node:crypto";
import type { EnvironmentTaskContext, Task } from "@a2a-partner/a2a-core";
import { GroupCommitWriter } from "@a2a-partner/postgres-store";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Backend,
  createTestDatabase,
  POSTGRES_URL,
  postgresAvailable,
  type TestDatabase,
} from "../../test/support/backends.ts";
import { DEMO, seed } from "../seed.ts";
import { SimulatedRobotFleet } from "./simulated-robot-fleet.ts";

// PostgreSQL only: the race needs a second connection (PGlite runs every statement in the order asked).
/** For the suite: a test database of `backend` with the demo workspace seeded, and that workspace's id. */
function seededDemo(backend: Backend): { database: TestDatabase; workspaceId: string } {
  const demo = {} as { database: TestDatabase; workspaceId: string };
  beforeAll(async () => {
    demo.database = await createTestDatabase(backend);
    await seed(demo.database.db);
    const { rows } = await demo.database.db.query<{ id: string }>("select id from workspaces where slug = $1", [
      DEMO.workspaceSlug,
    ]);
    demo.workspaceId = rows[0]?.id as string;
  });
  afterAll(() => demo.database?.drop());
  return demo;
}

describe.runIf(await postgresAvailable())("SimulatedRobotFleet on PostgreSQL", () => {
  const demo = seededDemo("postgres");

  it("ends the execution canceled when the task is canceled while its execution's insert is still queued", async () => {
    const db = demo.database.db;
    const taskId = randomUUID();
    await db.query(
      `insert into tasks (id, workspace_id, context_id, snapshot, state, terminal)
       values ($1, $2, 'ctx', '{}', 'canceled', true)`,
      [taskId, demo.workspaceId],
    );
    const writer = new GroupCommitWriter(db);
    const fleet = new SimulatedRobotFleet({ db, writer, stepMs: 0 });

    // Hold the writer's commit in flight (it waits on a lock), so the execution's insert queues behind it.
    const blocker = new pg.Client({
      connectionString: POSTGRES_URL,
      options: `-c search_path=${demo.database.openOptions.schema}`,
    });
    await blocker.connect();
    await blocker.query("begin");
    await blocker.query("lock table alerts in access exclusive mode");
    const held = writer.insertRows(
      "alerts",
      ["workspace_id", "alert_type", "severity", "message", "occurred_at"],
      [{ workspace_id: demo.workspaceId, alert_type: "t", severity: "warning", message: "m", occurred_at: new Date() }],
    );

    const canceled = new AbortController();
    canceled.abort();
    const outcome = fleet.execute({
      task: { id: taskId } as Task,
      taskId,
      workspaceId: demo.workspaceId,
      storeId: DEMO.storeId,
      text: "Restock aisle 5",
      message: {} as EnvironmentTaskContext["message"],
      signal: canceled.signal,
      nextMessage: () => new Promise(() => undefined),
      emit: async () => {},
    });
    // Let the fleet reach its stop while the writer is still held.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await blocker.query("commit");
    await blocker.end();
    await Promise.all([held, outcome]);

    const { rows } = await db.query<{ status: string }>("select status from workflow_executions where task_id = $1", [
      taskId,
    ]);
    expect(rows.map((row) => row.status)).toEqual(["canceled"]);
  });
});

describe("SimulatedRobotFleet when a write of its run fails", () => {
  const demo = seededDemo("pglite");

  it("stops the robots at once and fails the run, instead of carrying on with a step missing", async () => {
    const db = demo.database.db;
    const fleet = new SimulatedRobotFleet({ db, writer: new GroupCommitWriter(db), stepMs: 5 });
    const reported: unknown[] = [];
    const failingTaskId = randomUUID();
    const outcome = fleet.execute({
      task: { id: failingTaskId } as Task,
      taskId: failingTaskId,
      workspaceId: demo.workspaceId,
      storeId: DEMO.storeId,
      text: "Restock aisle 5",
      message: {} as EnvironmentTaskContext["message"],
      signal: new AbortController().signal,
      nextMessage: () => new Promise(() => undefined),
      emit: async (update) => {
        const step = update.kind === "status" ? update.metadata?.step : undefined;
        reported.push(step);
        // The second step's progress could not be stored (the database went away).
        if (step === 2) throw new Error("connection lost");
      },
    });
    await expect(outcome).rejects.toThrow("connection lost");
    // Well past the steps the plan has left (three more of 5 ms): none of them ran.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(reported).toEqual([1, 2]);
  });
});
