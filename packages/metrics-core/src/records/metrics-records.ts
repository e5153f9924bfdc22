/**
 * What `MetricsRecords` writes through: rows of a table by column list. postgres-store's
 * `GroupCommitWriter` is one (the records then ride in the same commits as the tasks' events); a
 * writer of your own works as long as it stores each row's values under the listed columns.
 */
export interface MetricsRowWriter {
  insertRows(
    table: string,
    columns: readonly string[],
    rows: readonly Readonly<Record<string, unknown>>[],
  ): Promise<void>;
  /** `dependsOn`: writes the update must not land without (postgres-store's writer: in their commit or after). */
  updateRows(
    table: string,
    key: string,
    columns: readonly string[],
    rows: readonly Readonly<Record<string, unknown>>[],
    dependsOn?: readonly PromiseLike<unknown>[],
  ): Promise<void>;
}

/** A workflow execution as it starts (one per unit of work the metrics count, a task say). */
export interface WorkflowExecutionStart {
  id: string;
  workspaceId: string;
  /** A row of `workflows` in the same workspace. */
  workflowId: string;
  taskId: string | null;
  status: string;
  startedAt: Date;
}

/** One node of a workflow execution, run to its end. */
export interface NodeExecutionRecord {
  workspaceId: string;
  workflowExecutionId: string;
  workflowId: string;
  nodeName: string;
  status: string;
  startedAt: Date;
  finishedAt: Date;
}

/** Where a telemetry event or an alert comes from; the ids are nullable in the schema. */
export interface RecordSource {
  workspaceId: string;
  environmentId: string | null;
  robotId: string | null;
}

export interface TelemetryEventRecord extends RecordSource {
  eventType: string;
  /** Stored in the jsonb `payload` column. */
  payload: Readonly<Record<string, unknown>>;
  occurredAt: Date;
}

export interface AlertRecord extends RecordSource {
  alertType: string;
  severity: string;
  message: string;
  occurredAt: Date;
}

// The columns written; the rows below are keyed by them.
const EXECUTION_COLUMNS = ["id", "workspace_id", "workflow_id", "task_id", "status", "started_at"] as const;
const EXECUTION_END_COLUMNS = ["status", "finished_at"] as const;
const NODE_COLUMNS = [
  "workspace_id",
  "workflow_execution_id",
  "workflow_id",
  "node_name",
  "status",
  "started_at",
  "finished_at",
] as const;
const TELEMETRY_COLUMNS = [
  "workspace_id",
  "environment_id",
  "robot_id",
  "event_type",
  "payload",
  "occurred_at",
] as const;
const ALERT_COLUMNS = [
  "workspace_id",
  "environment_id",
  "robot_id",
  "alert_type",
  "severity",
  "message",
  "occurred_at",
] as const;

/**
 * Writes the raw records the metrics endpoint counts (this package's migrations' tables: workflow
 * executions, node executions, telemetry events, alerts), each call one `insertRows` or `updateRows` of
 * its writer, so an embedder's work shows up in the metrics without knowing the column lists. The
 * promises are the writer's: with a GroupCommitWriter they settle when the commit that carries the
 * rows has.
 */
export class MetricsRecords {
  readonly #writer: MetricsRowWriter;

  constructor(writer: MetricsRowWriter) {
    this.#writer = writer;
  }

  /** A new row of `workflow_executions`. */
  startExecution(execution: WorkflowExecutionStart): Promise<void> {
    const { id, workspaceId, workflowId, taskId, status, startedAt } = execution;
    return this.#writer.insertRows("workflow_executions", EXECUTION_COLUMNS, [
      { id, workspace_id: workspaceId, workflow_id: workflowId, task_id: taskId, status, started_at: startedAt },
    ]);
  }

  /**
   * Sets an execution's final `status` and `finished_at` (its insert must have been committed first: an
   * update does not see a row inserted in its own commit). `dependsOn`: writes it must not land without.
   */
  finishExecution(
    id: string,
    status: string,
    finishedAt: Date,
    dependsOn?: readonly PromiseLike<unknown>[],
  ): Promise<void> {
    const row = { id, status, finished_at: finishedAt };
    return this.#writer.updateRows("workflow_executions", "id", EXECUTION_END_COLUMNS, [row], dependsOn);
  }

  /** A row of `workflow_node_executions`. */
  nodeExecution(node: NodeExecutionRecord): Promise<void> {
    return this.#writer.insertRows("workflow_node_executions", NODE_COLUMNS, [
      {
        workspace_id: node.workspaceId,
        workflow_execution_id: node.workflowExecutionId,
        workflow_id: node.workflowId,
        node_name: node.nodeName,
        status: node.status,
        started_at: node.startedAt,
        finished_at: node.finishedAt,
      },
    ]);
  }

  /** Rows of `telemetry_events`, in one call. */
  telemetryEvents(events: readonly TelemetryEventRecord[]): Promise<void> {
    return this.#writer.insertRows(
      "telemetry_events",
      TELEMETRY_COLUMNS,
      events.map((event) => ({
        ...sourceColumns(event),
        event_type: event.eventType,
        payload: event.payload,
        occurred_at: event.occurredAt,
      })),
    );
  }

  /** A row of `alerts`. */
  alert(alert: AlertRecord): Promise<void> {
    return this.#writer.insertRows("alerts", ALERT_COLUMNS, [
      {
        ...sourceColumns(alert),
        alert_type: alert.alertType,
        severity: alert.severity,
        message: alert.message,
        occurred_at: alert.occurredAt,
      },
    ]);
  }
}

function sourceColumns(source: RecordSource) {
  return { workspace_id: source.workspaceId, environment_id: source.environmentId, robot_id: source.robotId };
}
