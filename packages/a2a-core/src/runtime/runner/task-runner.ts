import type { EventLog } from "../../ports/event-log.js";
import type { Logger } from "../../ports/logger.js";
import type { ArtifactUpdate, ExecutorUpdate, TaskExecutor, TaskOutcome } from "../../ports/task-executor.js";
import type { NewLease, StoredTaskEvent, TaskRecord } from "../../ports/task-records.js";
import type { TaskStore } from "../../ports/task-store.js";
import type { Message, TaskState, TaskUpdateResult } from "../../protocol/schemas/a2a.js";
import type { HandlerTelemetry, RequestTrace } from "../../telemetry/handler-telemetry.js";
import type { TaskHub } from "../hub/task-hub.js";
import { everyOneRenewed } from "./every-one-renewed.js";
import { ExecutionContext } from "./execution-context.js";
import { checkedOutcome } from "./executor-states.js";
import { FollowUps } from "./follow-ups.js";
import { nextTurn } from "./next-turn.js";
import { sweepOrphans } from "./orphan-sweep.js";
import { emitted, outcomeAfter, writesOf } from "./outcome-dependencies.js";
import { ORPHANED_REASON, SHUTDOWN_REASON, TaskEndedElsewhere } from "./task-end-reasons.js";
import { logTaskEnded, logTaskStarted } from "./task-log.js";
import { TaskResults } from "./task-results.js";

export interface TaskRunnerOptions {
  /** Numbers and publishes the events of the tasks this process runs. */
  hub: TaskHub;
  tasks: TaskStore;
  events: EventLog;
  executor: TaskExecutor;
  logger: Logger;
  now: () => Date;
  generateId: () => string;
  instanceId: string;
  leaseMs: number;
  recoveryIntervalMs: number;
  telemetry: HandlerTelemetry;
}

interface Running {
  record: TaskRecord;
  controller: AbortController;
  done: Promise<void>;
  /** The task's span (undefined without an OpenTelemetry SDK). */
  span: ReturnType<HandlerTelemetry["startTask"]>;
  /** The caller's follow-ups, once the executor asked for one (multi-turn). */
  followUps?: FollowUps;
}

/** How often storing an executor's outcome is retried (with backoff) before the lease decides. */
const FINISH_RETRIES = 5;

/**
 * Runs executors in the background, holds leases on the tasks it runs, and ends tasks whose runner
 * vanished. The executor's outcome, a cancel and a takeover all end a task through the same conditional
 * append, so whichever comes first wins and the others are no-ops.
 */
export class TaskRunner {
  private readonly running = new Map<string, Running>();
  private readonly renewTimer: NodeJS.Timeout;
  private readonly sweepTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The orphan sweep under way, if any. */
  private sweeping: Promise<number> | undefined;
  private renewing = false;
  private readonly results: TaskResults;

  constructor(private readonly options: TaskRunnerOptions) {
    this.results = new TaskResults(options.now, options.generateId);
    const renewEvery = Math.max(10, Math.floor(options.leaseMs / 3));
    this.renewTimer = setInterval(() => void this.renewLeases(), renewEvery);
    this.renewTimer.unref?.();
    if (options.recoveryIntervalMs > 0) {
      // A tick while a sweep is still running (a slow or unreachable store) is skipped, not queued.
      this.sweepTimer = setInterval(() => {
        if (!this.sweeping) void this.recoverOrphans();
      }, options.recoveryIntervalMs);
      this.sweepTimer.unref?.();
    }
  }

  /** The lease a new task starts with. */
  newLease(): NewLease {
    return { owner: this.options.instanceId, durationMs: this.options.leaseMs };
  }

  /** Starts the executor for a freshly created task. Never awaited by a request: streams follow the log. */
  start(record: TaskRecord, message: Message, trace?: RequestTrace): void {
    const { telemetry } = this.options;
    const span = telemetry.startTask(trace, record);
    if (this.closed) {
      span?.end();
      // Created while the server was shutting down: end it now rather than leave it without a runner.
      void this.finish(record, "TASK_STATE_FAILED", SHUTDOWN_REASON, { reason: "shutdown" }).catch(() => undefined);
      return;
    }
    this.options.hub.own(record);
    const running: Running = { record, controller: new AbortController(), done: Promise.resolve(), span };
    this.running.set(record.task.id, running);
    // The executor starts on the next turn of the event loop, once the request's first frame is written:
    // started at once, its first writes would be prepared before that frame goes out. The log line waits
    // for that turn too: a logger writing synchronously (pino's default) would delay the first frame.
    running.done = nextTurn().then(() => {
      logTaskStarted(this.options.logger, record);
      return telemetry.within(span, () => this.run(running, message));
    });
  }

  /** Stops the local executor of a task that was canceled (its `finished` is already written). */
  abortLocal(taskId: string): void {
    this.running.get(taskId)?.controller.abort(new TaskEndedElsewhere());
  }

  /**
   * Ends a task with a terminal status-update unless it already ended, after the artifacts it ends with
   * (a task this process runs stores them and `finished` in one commit, if `dependsOn` succeeds). Returns
   * the stored `finished` event, or undefined when the task was already terminal.
   */
  async finish(
    record: TaskRecord,
    state: TaskState,
    text?: string,
    metadata?: Record<string, unknown>,
    artifacts: readonly ArtifactUpdate[] = [],
    dependsOn?: TaskOutcome["dependsOn"],
  ): Promise<StoredTaskEvent | undefined> {
    const result: TaskUpdateResult = {
      statusUpdate: {
        taskId: record.task.id,
        contextId: record.task.contextId,
        status: this.results.status(record, state, text),
        ...(metadata ? { metadata } : {}),
      },
    };
    const endedAt = this.options.now();
    const createdAt = endedAt.toISOString();
    const entry = { event: "finished" as const, result, createdAt };
    const { hub, events, telemetry } = this.options;
    const span = this.running.get(record.task.id)?.span;
    let stored: StoredTaskEvent[] | undefined;
    if (hub.owns(record.task.id)) {
      // A task this process runs is numbered here.
      const updates = artifacts.map((artifact) => ({
        event: "update" as const,
        result: this.results.update(record, { kind: "artifact", ...artifact }),
        createdAt,
      }));
      stored = await hub.append(record.task.id, [...updates, entry], dependsOn);
    } else {
      // Any other (a cancel of a task another instance runs, an orphan, a shutdown) is appended
      // conditionally by the store; such an end carries no artifacts.
      const finished = await events.append(record.task.id, entry);
      stored = finished ? [finished] : undefined;
    }
    if (!stored) return undefined;
    telemetry.eventsStored(stored, span);
    telemetry.taskEnded(record, state, endedAt.getTime(), span);
    logTaskEnded(this.options.logger, record, state, endedAt.getTime());
    return stored.at(-1);
  }

  /** Ends every orphaned task (lease expired: its runner is gone) as `failed`. Returns how many it ended. */
  async recoverOrphans(): Promise<number> {
    if (this.closed) return 0;
    // One sweep at a time; an explicit call waits for the one under way, then looks again.
    while (this.sweeping) await this.sweeping;
    this.sweeping = sweepOrphans({
      tasks: this.options.tasks,
      logger: this.options.logger,
      isRunningHere: (taskId) => this.running.has(taskId),
      end: (orphan) => this.finish(orphan, "TASK_STATE_FAILED", ORPHANED_REASON, { reason: "orphaned" }),
    }).finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  /**
   * Stops the orphan sweep, gives running tasks `graceMs` to finish, then ends the rest `failed` so none
   * stays `working` forever. Their leases are renewed through the grace: a lease shorter than the grace
   * must not let another instance's sweep end a task that is still running here.
   */
  async close(graceMs: number): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.sweepTimer);
    const all = [...this.running.values()].map((r) => r.done);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled(all),
      new Promise((r) => {
        timer = setTimeout(r, graceMs);
      }),
    ]);
    clearTimeout(timer);
    clearInterval(this.renewTimer);
    await Promise.allSettled(
      [...this.running.values()].map(async (running) => {
        running.controller.abort(new TaskEndedElsewhere());
        await this.finish(running.record, "TASK_STATE_FAILED", SHUTDOWN_REASON, { reason: "shutdown" });
        await running.done;
      }),
    );
  }

  /**
   * The executor's run, then its outcome stored. Written with promise reactions rather than as one async
   * function: a task waits on its executor for most of its life, and a suspended async function would
   * keep its frame alive all that time, for every running task.
   */
  private run(running: Running, message: Message): Promise<void> {
    const { record, controller } = running;
    // Ended before its turn came (canceled, ended elsewhere, shut down): the executor is not started at
    // all. Started with a signal already aborted, it would wait for an abort event that never comes.
    if (controller.signal.aborted) return this.storeOutcome(running, { state: "TASK_STATE_FAILED" });
    let outcome: Promise<TaskOutcome>;
    try {
      outcome = Promise.resolve(
        this.options.executor.execute(
          new ExecutionContext(
            record,
            message,
            controller.signal,
            (update) => emitted(this.emit(record, update, controller)),
            () => {
              // Every follow-up after the start, in the log's order: each is handed over once.
              running.followUps ??= new FollowUps(this.options.hub, record, record.lastSeq, controller.signal);
              return running.followUps.next();
            },
          ),
        ),
      );
    } catch (error) {
      outcome = Promise.reject(error);
    }
    return outcome.then(checkedOutcome).then(
      (result) => this.storeOutcome(running, result),
      (error: unknown) => {
        if (!controller.signal.aborted) {
          this.options.logger.error({ err: error, taskId: record.task.id }, "executor failed");
        }
        return this.storeOutcome(running, { state: "TASK_STATE_FAILED", message: "The task failed." });
      },
    );
  }

  /** Stores the executor's outcome (unless the task ended elsewhere meanwhile), then lets go of the task. */
  private async storeOutcome(running: Running, outcome: TaskOutcome): Promise<void> {
    const { record, controller } = running;
    let end = outcome; // or a failure, once a write it depends on failed (`outcomeAfter`)
    try {
      if (controller.signal.aborted) return;
      // Retried: a brief store outage must not turn a completed task into a failed one (the lease's verdict).
      for (let attempt = 0; ; attempt++) {
        try {
          await this.finish(record, end.state, end.message, end.metadata, end.artifacts, writesOf(end));
          return;
        } catch (error) {
          const instead = outcomeAfter(error, record.task.id, this.options.logger);
          if (instead) {
            end = instead;
            continue;
          }
          if (attempt >= FINISH_RETRIES || this.closed) {
            this.options.logger.error({ err: error, taskId: record.task.id }, "could not store the end of a task");
            return;
          }
          await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, this.options.leaseMs / 4)));
        }
      }
    } finally {
      running.followUps?.close();
      this.running.delete(record.task.id);
      running.span?.end();
    }
  }

  private async emit(record: TaskRecord, update: ExecutorUpdate, controller: AbortController): Promise<void> {
    if (controller.signal.aborted) return;
    const stored = await this.options.hub.append(record.task.id, [
      { event: "update", result: this.results.update(record, update), createdAt: this.options.now().toISOString() },
    ]);
    // Refused: the task already ended (canceled on another instance, or taken over). Stop the robots.
    if (!stored) controller.abort(new TaskEndedElsewhere());
    else this.options.telemetry.eventsStored(stored, this.running.get(record.task.id)?.span);
  }

  private async renewLeases(): Promise<void> {
    const ids = [...this.running.keys()];
    if (ids.length === 0 || this.renewing) return;
    this.renewing = true;
    try {
      const renewed = await this.options.tasks.renewLeases(this.options.instanceId, ids, this.options.leaseMs);
      if (everyOneRenewed(ids, renewed)) return;
      // A lease that could not be renewed belongs to a task that ended or was taken over: stop its work.
      const kept = new Set(renewed);
      for (const id of ids) if (!kept.has(id)) this.abortLocal(id);
    } catch (error) {
      this.options.logger.error({ err: error }, "lease renewal failed; will retry");
    } finally {
      this.renewing = false;
    }
  }
}
