import type { TaskExecutionContext, TaskExecutor, TaskOutcome } from "@a2a-partner/a2a-core";
import type { Database, Queryable } from "@a2a-partner/postgres-store";
import { planWorkflow } from "./plan-workflow.ts";

export interface SimulatedRobotFleetOptions {
  db: Database;
  /** Delay between robot steps; near zero in tests, a few hundred ms for a person to watch. */
  stepMs: number;
  now?: () => Date;
  /** Chance per step that a robot meets an obstacle (an alert). Default 0.15. */
  obstacleRate?: number;
}

interface RobotRow {
  id: string;
  name: string;
}

/**
 * The robots of every Environment, simulated: a task becomes a workflow of a few nodes, each run by a
 * robot of the task's Environment, reported as progress and written to the records the metrics count
 * (one workflow execution per task, one node execution per node, telemetry events, alerts).
 */
export class SimulatedRobotFleet implements TaskExecutor {
  private readonly db: Database;
  private readonly stepMs: number;
  private readonly now: () => Date;
  private readonly obstacleRate: number;

  constructor(options: SimulatedRobotFleetOptions) {
    this.db = options.db;
    this.stepMs = options.stepMs;
    this.now = options.now ?? (() => new Date());
    this.obstacleRate = options.obstacleRate ?? 0.15;
  }

  async hasEnvironment(workspaceId: string, storeId: string): Promise<boolean> {
    const { rows } = await this.db.query("select 1 from environments where workspace_id = $1 and store_id = $2", [
      workspaceId,
      storeId,
    ]);
    return rows.length > 0;
  }

  async execute(context: TaskExecutionContext): Promise<TaskOutcome> {
    const { workspaceId, storeId, signal } = context;
    const environment = await this.environment(workspaceId, storeId);
    if (!environment) return { state: "rejected", message: `No Environment "${storeId}" in this workspace.` };
    if (environment.robots.length === 0) {
      return { state: "rejected", message: `Environment "${storeId}" has no robots to dispatch.` };
    }

    const plan = planWorkflow(context.text);
    const random = seededRandom(context.task.id);
    const executionId = await this.db.transaction(async (tx) => {
      const workflowId = await upsertWorkflow(tx, workspaceId, plan.workflowName);
      const { rows } = await tx.query<{ id: string }>(
        `insert into workflow_executions (workspace_id, workflow_id, task_id, status, started_at)
         values ($1, $2, $3, 'running', $4) returning id`,
        [workspaceId, workflowId, context.task.id, this.now()],
      );
      return { executionId: rows[0]?.id as string, workflowId };
    });

    const robotsUsed = new Set<string>();
    let alerts = 0;
    for (const [index, node] of plan.nodes.entries()) {
      if (signal.aborted) return this.stopped();
      const robot = environment.robots[index % environment.robots.length] as RobotRow;
      robotsUsed.add(robot.name);
      const obstacle = random() < this.obstacleRate;
      const startedAt = this.now();
      await sleep(this.stepMs, signal);
      if (signal.aborted) return this.stopped();
      await this.db.transaction(async (tx) => {
        await tx.query(
          `insert into workflow_node_executions
             (workspace_id, workflow_execution_id, workflow_id, node_name, status, started_at, finished_at)
           values ($1, $2, $3, $4, 'completed', $5, $6)`,
          [workspaceId, executionId.executionId, executionId.workflowId, node.name, startedAt, this.now()],
        );
        const telemetry = [...node.telemetry, "battery.level"];
        for (const eventType of telemetry) {
          await tx.query(
            `insert into telemetry_events (workspace_id, environment_id, robot_id, event_type, payload, occurred_at)
             values ($1, $2, $3, $4, $5, $6)`,
            [
              workspaceId,
              environment.id,
              robot.id,
              eventType,
              JSON.stringify(telemetryPayload(eventType, random)),
              this.now(),
            ],
          );
        }
        if (obstacle) {
          await tx.query(
            `insert into alerts (workspace_id, environment_id, robot_id, alert_type, severity, message, occurred_at)
             values ($1, $2, $3, 'obstacle_detected', 'warning', $4, $5)`,
            [workspaceId, environment.id, robot.id, `${robot.name} rerouted around an obstacle`, this.now()],
          );
        }
      });
      if (obstacle) alerts++;
      const percent = Math.round(((index + 1) / plan.nodes.length) * 100);
      await context.emit({
        kind: "status",
        message: `${robot.name}: ${node.action}${obstacle ? " (rerouted around an obstacle)" : ""}`,
        metadata: {
          robotId: robot.id,
          robot: robot.name,
          workflow: plan.workflowName,
          node: node.name,
          step: index + 1,
          steps: plan.nodes.length,
          percent,
          ...(obstacle ? { alert: "obstacle_detected" } : {}),
        },
      });
    }

    await this.db.query("update workflow_executions set status = 'completed', finished_at = $2 where id = $1", [
      executionId.executionId,
      this.now(),
    ]);
    const summary = `${plan.workflowName}${plan.target ? ` at ${plan.target}` : ""}: ${plan.nodes.length} steps by ${robotsUsed.size} robot(s)`;
    await context.emit({
      kind: "artifact",
      artifact: {
        artifactId: "report",
        name: "Task report",
        parts: [
          {
            kind: "data",
            data: {
              workflow: plan.workflowName,
              target: plan.target ?? null,
              steps: plan.nodes.map((n) => n.name),
              robots: [...robotsUsed],
              alerts,
            },
          },
        ],
      },
      lastChunk: true,
    });
    return { state: "completed", message: `Done: ${summary}.` };
  }

  private async environment(workspaceId: string, storeId: string) {
    const { rows } = await this.db.query<{ id: string }>(
      "select id from environments where workspace_id = $1 and store_id = $2",
      [workspaceId, storeId],
    );
    const environment = rows[0];
    if (!environment) return undefined;
    const robots = await this.db.query<RobotRow>(
      "select id, name from robots where environment_id = $1 order by name",
      [environment.id],
    );
    return { id: environment.id, robots: robots.rows };
  }

  /**
   * The robots stopped because the task ended elsewhere (canceled, taken over, shutdown). The outcome is
   * ignored by the runner; the execution's status follows the task's terminal state (see
   * `reconcileExecutions`), written at once for a cancel and by the next sweep otherwise.
   */
  private async stopped(): Promise<TaskOutcome> {
    await this.reconcileExecutions();
    return { state: "failed" };
  }

  /**
   * Ends every workflow execution still `running` whose task has ended: the task's state is the truth
   * (a server that died mid-task leaves its execution behind). Runs after an abort and periodically.
   */
  async reconcileExecutions(): Promise<number> {
    const { rowCount } = await this.db.query(
      `update workflow_executions e
          set status = case t.state when 'completed' then 'completed' when 'canceled' then 'canceled' else 'failed' end,
              finished_at = coalesce(e.finished_at, t.updated_at)
         from tasks t
        where e.task_id = t.id and e.status = 'running' and t.terminal`,
    );
    return rowCount;
  }
}

async function upsertWorkflow(tx: Queryable, workspaceId: string, name: string): Promise<string> {
  const existing = await tx.query<{ id: string }>("select id from workflows where workspace_id = $1 and name = $2", [
    workspaceId,
    name,
  ]);
  if (existing.rows[0]) return existing.rows[0].id;
  const inserted = await tx.query<{ id: string }>(
    `insert into workflows (workspace_id, name) values ($1, $2)
     on conflict (workspace_id, name) do update set name = excluded.name returning id`,
    [workspaceId, name],
  );
  return inserted.rows[0]?.id as string;
}

function telemetryPayload(eventType: string, random: () => number): Record<string, unknown> {
  if (eventType === "battery.level") return { percent: Math.round(40 + random() * 60) };
  return { x: Math.round(random() * 100), y: Math.round(random() * 40) };
}

/** Deterministic per task, so a task's simulated run is reproducible. */
function seededRandom(seed: string): () => number {
  let state = 2166136261;
  for (const char of seed) state = Math.imul(state ^ char.charCodeAt(0), 16777619);
  return () => {
    state = Math.imul(state ^ (state >>> 15), 2246822507);
    state = Math.imul(state ^ (state >>> 13), 3266489909);
    state ^= state >>> 16;
    return (state >>> 0) / 4294967296;
  };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
