import { randomUUID } from "node:crypto";
import { type Database, GroupCommitWriter, openDatabase } from "@a2a-partner/postgres-store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MetricsRecords, queryEventMetrics } from "../src/index.js";
import { openPostgres, POSTGRES_URL, type PostgresTestDatabase, postgresAvailable } from "./support/databases.js";

// Under CI the suite always runs, so an unreachable PostgreSQL fails it instead of skipping it quietly.
const runs = await postgresAvailable();
if (!runs) console.warn(`PostgreSQL at ${POSTGRES_URL} is unreachable: skipping the metrics records suite`);

describe.runIf(runs)("MetricsRecords through postgres-store's GroupCommitWriter, on PostgreSQL", () => {
  let test: PostgresTestDatabase;
  let db: Database;
  let records: MetricsRecords;
  const workspaceId = randomUUID();
  const workflowId = randomUUID();
  const executionId = randomUUID();
  const taskId = randomUUID();
  const environmentId = randomUUID();
  const robotId = randomUUID();
  const startedAt = new Date("2026-03-02T10:00:00.000Z");
  const finishedAt = new Date("2026-03-02T10:00:05.000Z");

  beforeAll(async () => {
    test = await openPostgres();
    db = await openDatabase({ url: POSTGRES_URL, pool: { max: 2, options: `-c search_path=${test.schema}` } });
    records = new MetricsRecords(new GroupCommitWriter(db));
    await test.query("insert into workflows (id, workspace_id, name) values ($1, $2, 'restock')", [
      workflowId,
      workspaceId,
    ]);
  });

  afterAll(async () => {
    await db?.close();
    await test?.close();
  });

  it("writes every record kind under its columns, and the metrics count them", async () => {
    const source = { workspaceId, environmentId, robotId };
    const started = records.startExecution({
      id: executionId,
      workspaceId,
      workflowId,
      taskId,
      status: "running",
      startedAt,
    });
    await Promise.all([
      started,
      records.nodeExecution({
        workspaceId,
        workflowExecutionId: executionId,
        workflowId,
        nodeName: "navigate",
        status: "completed",
        startedAt,
        finishedAt,
      }),
      records.telemetryEvents([
        { ...source, eventType: "pose.update", payload: { x: 3, y: 4 }, occurredAt: finishedAt },
        { ...source, eventType: "battery.level", payload: { percent: 80 }, occurredAt: finishedAt },
      ]),
      records.alert({
        ...source,
        alertType: "obstacle_detected",
        severity: "warning",
        message: "R1 rerouted around an obstacle",
        occurredAt: finishedAt,
      }),
    ]);
    await records.finishExecution(executionId, "completed", finishedAt);

    const executions = await test.query(
      "select id, workspace_id, workflow_id, task_id, status, started_at, finished_at from workflow_executions",
    );
    expect(executions.rows).toEqual([
      {
        id: executionId,
        workspace_id: workspaceId,
        workflow_id: workflowId,
        task_id: taskId,
        status: "completed",
        started_at: startedAt,
        finished_at: finishedAt,
      },
    ]);
    const nodes = await test.query(
      "select workflow_execution_id, workflow_id, node_name, status, started_at, finished_at from workflow_node_executions",
    );
    expect(nodes.rows).toEqual([
      {
        workflow_execution_id: executionId,
        workflow_id: workflowId,
        node_name: "navigate",
        status: "completed",
        started_at: startedAt,
        finished_at: finishedAt,
      },
    ]);
    const telemetry = await test.query(
      "select environment_id, robot_id, event_type, payload, occurred_at from telemetry_events order by id",
    );
    expect(telemetry.rows).toEqual([
      {
        environment_id: environmentId,
        robot_id: robotId,
        event_type: "pose.update",
        payload: { x: 3, y: 4 },
        occurred_at: finishedAt,
      },
      {
        environment_id: environmentId,
        robot_id: robotId,
        event_type: "battery.level",
        payload: { percent: 80 },
        occurred_at: finishedAt,
      },
    ]);
    const alerts = await test.query("select alert_type, severity, message, occurred_at from alerts");
    expect(alerts.rows).toEqual([
      {
        alert_type: "obstacle_detected",
        severity: "warning",
        message: "R1 rerouted around an obstacle",
        occurred_at: finishedAt,
      },
    ]);

    const body = await queryEventMetrics(test.driver, workspaceId, { start: null, end: null });
    expect(body.workflow_executions.by_workflow).toEqual({ [workflowId]: { name: "restock", count: 1 } });
    expect(body.workflow_node_executions.total).toBe(1);
    expect(body.telemetry.by_event_type).toEqual({ "pose.update": 1, "battery.level": 1 });
    expect(body.alerts.by_alert_type).toEqual({ obstacle_detected: 1 });
  });

  it("writes nothing for an empty list of telemetry events", async () => {
    await records.telemetryEvents([]);
    const { rows } = await test.query<{ count: string }>("select count(*) from telemetry_events");
    expect(rows).toEqual([{ count: "2" }]);
  });
});
