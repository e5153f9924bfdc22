import type { ArtifactUpdate, TaskExecutionContext, TaskOutcome } from "@a2a-partner/a2a-core";
import type { WorkflowNodePlan, WorkflowPlan } from "./plan-workflow.ts";

export interface RobotRow {
  id: string;
  name: string;
}

export interface Environment {
  id: string;
  robots: RobotRow[];
}

/** One step as the fleet records it (a node execution, telemetry, maybe an alert). */
export interface StepRecord {
  robot: RobotRow;
  node: WorkflowNodePlan;
  obstacle: boolean;
  startedAt: Date;
}

/** What a run needs from its fleet: the writes around the steps. */
export interface RobotRunHost {
  readonly stepMs: number;
  /** Chance per step that a robot meets an obstacle (an alert). */
  readonly obstacleRate: number;
  now(): Date;
  /** The step's records, handed to the group-commit writer (each promise settles at its commit). */
  recordStep(run: RobotRun, step: StepRecord): Promise<unknown>[];
  /** Marks the workflow execution completed, in the commit of the run's last `records` (not without them). */
  completeExecution(executionId: string, records: readonly Promise<unknown>[]): Promise<unknown>;
  /** The run stopped early: let the queued writes land, then settle the execution from the task's state. */
  stopped(writes: readonly Promise<unknown>[]): Promise<TaskOutcome>;
}

/**
 * The robots working through one task's workflow: a step every `stepMs`, on a timer, with the run itself
 * as the abort listener. Written as an object rather than an async loop: a task waits between steps for
 * most of its life, and a suspended async function keeps its whole frame, a promise per await and a
 * closure per sleep alive for that time (measured: ~1 KiB per running task in heap snapshots).
 */
export class RobotRun {
  /** Settles once: completed, rejected by the first failed write, or the fleet's verdict on a stopped run. */
  readonly outcome: Promise<TaskOutcome>;
  readonly context: TaskExecutionContext;
  readonly environment: Environment;
  readonly workflowId: string;
  readonly executionId: string;
  readonly random: () => number;
  private readonly host: RobotRunHost;
  private readonly plan: WorkflowPlan;
  /** Every write of the run (the execution's insert first), its progress events among them. */
  private readonly writes: Promise<unknown>[];
  /** The rows of the run (the execution's insert and each step's records): its writes but the progress. */
  private readonly records: Promise<unknown>[];
  private readonly robotsUsed = new Set<string>();
  private settle!: (outcome: Promise<TaskOutcome> | TaskOutcome) => void;
  private settled = false;
  private index = 0;
  private alerts = 0;
  private obstacle = false;
  /** When the current step began (epoch ms: a number, not a Date held between steps). */
  private stepStartedAt = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    host: RobotRunHost,
    context: TaskExecutionContext,
    run: {
      environment: Environment;
      plan: WorkflowPlan;
      workflowId: string;
      executionId: string;
      random: () => number;
      started: Promise<unknown>;
    },
  ) {
    this.host = host;
    this.context = context;
    this.environment = run.environment;
    this.plan = run.plan;
    this.workflowId = run.workflowId;
    this.executionId = run.executionId;
    this.random = run.random;
    this.writes = [run.started];
    this.records = [run.started];
    run.started.catch((error: unknown) => this.writeFailed(error));
    this.outcome = new Promise((resolve) => {
      this.settle = resolve;
    });
    context.signal.addEventListener("abort", this);
    this.beginStep();
  }

  /** The task was stopped elsewhere (canceled, taken over, shutdown): no further step. */
  handleEvent(): void {
    clearTimeout(this.timer);
    this.finish(() => this.host.stopped(this.writes));
  }

  private static stepTimeUp(this: void, run: RobotRun): void {
    run.endStep();
  }

  private beginStep(): void {
    if (this.context.signal.aborted) {
      this.handleEvent();
      return;
    }
    // Drawn before the wait, as the robots meet the obstacle during the step: the order of draws (and so
    // a task's simulated run) stays the same for a given task id.
    this.obstacle = this.random() < this.host.obstacleRate;
    this.stepStartedAt = this.host.now().getTime();
    const { stepMs } = this.host;
    if (stepMs > 0) this.timer = setTimeout(RobotRun.stepTimeUp, stepMs, this);
    else void Promise.resolve(this).then(RobotRun.stepTimeUp);
  }

  private endStep(): void {
    this.timer = undefined;
    if (this.settled) return;
    if (this.context.signal.aborted) {
      this.handleEvent();
      return;
    }
    const { nodes, workflowName } = this.plan;
    const node = nodes[this.index] as WorkflowNodePlan;
    const robots = this.environment.robots;
    const robot = robots[this.index % robots.length] as RobotRow;
    this.robotsUsed.add(robot.name);
    const obstacle = this.obstacle;
    if (obstacle) this.alerts++;
    // The step's records ride in the same group commit as its progress event. Robots do not wait for
    // the database between steps: an event still reaches a stream only once it is durable.
    const records = this.host.recordStep(this, { robot, node, obstacle, startedAt: new Date(this.stepStartedAt) });
    const step = this.index + 1;
    const progress = this.context.emit({
      kind: "status",
      message: `${robot.name}: ${node.action}${obstacle ? " (rerouted around an obstacle)" : ""}`,
      metadata: {
        robotId: robot.id,
        robot: robot.name,
        workflow: workflowName,
        node: node.name,
        step,
        steps: nodes.length,
        percent: Math.round((step / nodes.length) * 100),
        ...(obstacle ? { alert: "obstacle_detected" } : {}),
      },
    });
    for (const write of [...records, progress]) {
      write.catch((error: unknown) => this.writeFailed(error));
      this.writes.push(write);
    }
    this.records.push(...records);
    this.index = step;
    if (step < nodes.length) this.beginStep();
    else this.finish(() => this.completed());
  }

  /**
   * A write of the run could not be stored (the database is away, or refused a row): the robots stop at
   * once rather than carry on with a task whose record already misses a step, and the run fails once its
   * other writes have settled (the task ends `failed`; the runner stores that when it can).
   */
  private writeFailed(error: unknown): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.finish(() =>
      Promise.allSettled(this.writes).then(() => {
        throw error;
      }),
    );
  }

  /**
   * The report returned with the outcome (so it and `finished` share one commit), which depends on the
   * run's rows and on the execution's completion: the task's end is stored with the last of them, in
   * their commit rather than the one after, and if one of them fails the task fails instead. The completion
   * depends on the run's rows only (the progress events are stored with the end; the end waits for it).
   */
  private async completed(): Promise<TaskOutcome> {
    if (this.context.signal.aborted) return this.host.stopped(this.writes);
    const completion = this.host.completeExecution(this.executionId, this.records);
    completion.catch(() => undefined); // its failure fails the task, through `dependsOn`
    const { workflowName, target, nodes } = this.plan;
    const summary = `${workflowName}${target ? ` at ${target}` : ""}: ${nodes.length} steps by ${this.robotsUsed.size} robot(s)`;
    const report: ArtifactUpdate = {
      artifact: {
        artifactId: "report",
        name: "Task report",
        parts: [
          {
            data: {
              workflow: workflowName,
              target: target ?? null,
              steps: nodes.map((n) => n.name),
              robots: [...this.robotsUsed],
              alerts: this.alerts,
            },
          },
        ],
      },
      lastChunk: true,
    };
    return {
      state: "TASK_STATE_COMPLETED",
      message: `Done: ${summary}.`,
      artifacts: [report],
      // Its progress events need not be named: each is stored with the end or before it (a2a-core).
      dependsOn: [...this.records, completion],
    };
  }

  /** The first way the run ends wins; the listener goes with it. */
  private finish(outcome: () => Promise<TaskOutcome>): void {
    if (this.settled) return;
    this.settled = true;
    this.context.signal.removeEventListener("abort", this);
    this.settle(outcome());
  }
}
