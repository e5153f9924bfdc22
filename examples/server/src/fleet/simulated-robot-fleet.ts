import { randomUUID } from "node:crypto";
import type { EnvironmentExecutor, EnvironmentTaskContext, TaskOutcome } from "@a2a-partner/a2a-core";
import { MetricsRecords } from "@a2a-partner/metrics-core";
import {
  type CacheInvalidation,
  type Database,
  GroupCommitWriter,
  InvalidatedCache,
} from "@a2a-partner/postgres-store";
import { planWorkflow } from "./plan-workflow.ts";
import { type Environment, type RobotRow, RobotRun, type RobotRunHost, type StepRecord } from "./robot-run.ts";

export interface SimulatedRobotFleetOptions {
  db: Database;
  /**
   * The process's group-commit writer: the fleet's metrics records ride in the same commits as the
   * tasks' events. Default: a writer of its own.
   */
  writer?: GroupCommitWriter;
  /** Lets the fleet keep Environments, robots and workflow ids in memory, exactly (see CacheInvalidation). */
  invalidation?: CacheInvalidation;
  /** Delay between robot steps; near zero in tests, a few hundred ms for a person to watch. */
  stepMs: number;
  now?: () => Date;
  /** Chance per step that a robot meets an obstacle (an alert). Default 0.15. */
  obstacleRate?: number;
}

const rejected = (message: string): TaskOutcome => ({ state: "TASK_STATE_REJECTED", message });

/**
 * The robots of every Environment, simulated: a task becomes a workflow of a few nodes, each run by a
 * robot of the task's Environment, reported as progress and written to the records the metrics count
 * (one workflow execution per task, one node execution per node, telemetry events, alerts). The handler
 * takes it as `environmentExecutor(fleet)`: every task names its Environment.
 */
export class SimulatedRobotFleet implements EnvironmentExecutor {
  private readonly db: Database;
  /** The metrics records, through the group-commit writer. */
  private readonly records: MetricsRecords;
  private readonly stepMs: number;
  private readonly now: () => Date;
  private readonly obstacleRate: number;
  private readonly environments: InvalidatedCache<Environment> | undefined;
  private readonly workflows: InvalidatedCache<string> | undefined;
  /** What every run calls back into: one object for the fleet, nothing per task. */
  private readonly runHost: RobotRunHost;

  constructor(options: SimulatedRobotFleetOptions) {
    this.db = options.db;
    this.records = new MetricsRecords(options.writer ?? new GroupCommitWriter(options.db));
    this.stepMs = options.stepMs;
    this.now = options.now ?? (() => new Date());
    this.obstacleRate = options.obstacleRate ?? 0.15;
    const { invalidation } = options;
    this.environments = invalidation && new InvalidatedCache(invalidation, ["environments", "robots"], 10_000);
    this.workflows = invalidation && new InvalidatedCache(invalidation, ["workflows"], 10_000);
    this.runHost = {
      stepMs: this.stepMs,
      obstacleRate: this.obstacleRate,
      now: this.now,
      recordStep: (run, step) => this.stepRecords(run, step),
      completeExecution: (executionId, records) => this.completeExecution(executionId, records),
      stopped: (writes) => this.stopped(writes),
    };
  }

  async hasEnvironment(workspaceId: string, storeId: string): Promise<boolean> {
    return (await this.environment(workspaceId, storeId)) !== undefined;
  }

  /**
   * The workspace's default Environment (`pnpm cli environment default`), for starts that name no store.
   * Read from the database each time: such starts are rare (generic A2A clients), and workspaces announce
   * no cache changes.
   */
  async defaultEnvironment(workspaceId: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ store_id: string }>(
      `select e.store_id from workspaces w join environments e on e.id = w.default_environment_id where w.id = $1`,
      [workspaceId],
    );
    return rows[0]?.store_id;
  }

  async execute(context: EnvironmentTaskContext): Promise<TaskOutcome> {
    const { workspaceId, storeId } = context;
    const environment = await this.environment(workspaceId, storeId);
    if (!environment) return rejected(`No Environment "${storeId}" in this workspace.`);
    if (environment.robots.length === 0) return rejected(`Environment "${storeId}" has no robots to dispatch.`);

    const plan = planWorkflow(context.text);
    const taskId = context.taskId;
    const workflowId = await this.workflowId(workspaceId, plan.workflowName);
    const executionId = randomUUID();
    // Not awaited on its own: the writer commits in order, so it lands with or before the first step's
    // node execution (which refers to it; keys are checked at the end of each commit), and the task saves
    // a commit's wait. The run awaits it with its other writes: a step that could not be stored fails
    // the task.
    const started = this.records.startExecution({
      id: executionId,
      workspaceId,
      workflowId,
      taskId,
      status: "running",
      startedAt: this.now(),
    });
    return new RobotRun(this.runHost, context, {
      environment,
      plan,
      workflowId,
      executionId,
      random: seededRandom(taskId),
      started,
    }).outcome;
  }

  /**
   * In the commit of the run's last records, with the task's end (which depends on this update): not
   * without them. Should it be refused, the task fails, and the periodic reconcile settles the execution
   * from the task's final state.
   */
  private completeExecution(executionId: string, records: readonly Promise<unknown>[]): Promise<unknown> {
    return this.records.finishExecution(executionId, "completed", this.now(), records);
  }

  /** A step's records: its node execution, its telemetry and, if the robot met an obstacle, an alert. */
  private stepRecords(run: RobotRun, step: StepRecord): Promise<void>[] {
    const at = this.now();
    const { robot, node } = step;
    const source = { workspaceId: run.context.workspaceId, environmentId: run.environment.id, robotId: robot.id };
    const records = [
      this.records.nodeExecution({
        workspaceId: source.workspaceId,
        workflowExecutionId: run.executionId,
        workflowId: run.workflowId,
        nodeName: node.name,
        status: "completed",
        startedAt: step.startedAt,
        finishedAt: at,
      }),
      this.records.telemetryEvents(
        [...node.telemetry, "battery.level"].map((eventType) => ({
          ...source,
          eventType,
          payload: telemetryPayload(eventType, run.random),
          occurredAt: at,
        })),
      ),
    ];
    if (step.obstacle) {
      const message = `${robot.name} rerouted around an obstacle`;
      records.push(
        this.records.alert({ ...source, alertType: "obstacle_detected", severity: "warning", message, occurredAt: at }),
      );
    }
    return records;
  }

  /** The Environment and its robots (one query), from memory while nothing changed them. */
  private environment(workspaceId: string, storeId: string): Promise<Environment | undefined> {
    const load = async (): Promise<Environment | undefined> => {
      const { rows } = await this.db.query<{ id: string; robots: RobotRow[] }>(
        `select e.id,
                coalesce((select json_agg(json_build_object('id', r.id, 'name', r.name) order by r.name)
                            from robots r where r.environment_id = e.id), '[]') as robots
           from environments e where e.workspace_id = $1 and e.store_id = $2`,
        [workspaceId, storeId],
      );
      const row = rows[0];
      return row && { id: row.id, robots: row.robots };
    };
    return this.environments?.lookup(`${workspaceId}\u0000${storeId}`, load) ?? load();
  }

  /** The workflow's id in the workspace, created on first use; from memory after that. */
  private workflowId(workspaceId: string, name: string): Promise<string> {
    const load = async (): Promise<string> => {
      // Looked up first: an INSERT, even one that inserts nothing, fires the statement trigger that
      // announces a change to workflows, and would empty this very cache on every task.
      const found = await this.db.query<{ id: string }>(
        "select id from workflows where workspace_id = $1 and name = $2",
        [workspaceId, name],
      );
      const rows = found.rows.length
        ? found.rows
        : (
            await this.db.query<{ id: string }>(
              `insert into workflows (workspace_id, name) values ($1, $2)
               on conflict (workspace_id, name) do update set name = excluded.name returning id`,
              [workspaceId, name],
            )
          ).rows;
      return rows[0]?.id as string;
    };
    return this.workflows?.lookup(`${workspaceId}\u0000${name}`, load) ?? load();
  }

  /**
   * The robots stopped because the task ended elsewhere (canceled, taken over, shutdown). The outcome is
   * ignored by the runner; the execution's status follows the task's terminal state (see
   * `reconcileExecutions`), written at once for a cancel and by the next sweep otherwise. The writes
   * still queued (the execution's own insert among them) land first: reconciled before its insert, the
   * execution would be written `running` afterwards and stay so.
   */
  private async stopped(writes: readonly Promise<unknown>[]): Promise<TaskOutcome> {
    await Promise.allSettled(writes);
    await this.reconcileExecutions();
    return { state: "TASK_STATE_FAILED" };
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
