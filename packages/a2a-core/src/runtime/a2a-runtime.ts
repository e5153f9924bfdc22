import type { A2AStores } from "../ports/a2a-stores.js";
import type { Logger } from "../ports/logger.js";
import type { TaskExecutor } from "../ports/task-executor.js";
import type { TaskRecord } from "../ports/task-records.js";
import { TaskNotFoundError } from "../protocol/errors.js";
import type { MethodName } from "../protocol/method-table.js";
import type { AgentCardInput } from "../protocol/schemas/agent-card-input.js";
import type { HandlerTelemetry } from "../telemetry/handler-telemetry.js";
import { TaskHub } from "./hub/task-hub.js";
import { PerCallerSlots } from "./per-caller-slots.js";
import type { PushDispatcher } from "./push/dispatcher.js";
import type { PushSide } from "./push/push-side.js";
import { TaskRunner, type TaskRunnerOptions } from "./runner/task-runner.js";
import { OpenStreams } from "./streams/open-streams.js";
import type { BacklogBounds } from "./streams/task-subscription.js";

/** What the runtime needs: the stores, and the runner's settings (it makes the hub the runner uses). */
export interface A2ARuntimeOptions extends Omit<TaskRunnerOptions, "hub" | "tasks" | "events"> {
  stores: A2AStores;
  keepAliveMs: number;
  maxStreamBacklogBytes: number;
  maxOpenStreamsPerCaller: number | undefined;
  terminalTaskCacheSize: number;
  terminalTaskCacheBytes: number;
  /** Push notifications, when on (`stores.push` given and not turned off). */
  push: PushSide | undefined;
  /** Delivers the push queue from this instance (push on and `push.dispatch` not `false`); started here. */
  pushDispatcher?: PushDispatcher | undefined;
  /** Methods the embedder turned off: they answer -32004 (UnsupportedOperation) before reading params. */
  turnedOff?: ReadonlySet<MethodName>;
  /** How long a blocking SendMessage waits for its task to end or ask for input. */
  sendMessageWaitMs?: number;
  /** Whether a message with `message.taskId` continues a task waiting for input (else -32004). Default true. */
  continueTasks?: boolean;
  /** Whether a `messageId` names its start (a retry gets the same task) and its follow-up. Default true. */
  messageIdsAreKeys?: boolean;
  /** The extended card of an authenticated caller's workspace (GetExtendedAgentCard); without it, -32004. */
  extendedAgentCard?: ((workspaceId: string) => AgentCardInput | Promise<AgentCardInput>) | undefined;
}

/** Default of `sendMessageWaitMs`: under the usual 60 s of proxies between a client and the server. */
export const SEND_MESSAGE_WAIT_MS = 50_000;

/**
 * The engine under every method and binding: the tasks this process runs (runner), their live events
 * (hub), the open streams and their slots. It knows no wire format; methods use it, bindings never
 * reach past the methods into it except to open the stream a method asked for.
 */
export class A2ARuntime {
  readonly stores: A2AStores;
  readonly executor: TaskExecutor;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly generateId: () => string;
  readonly telemetry: HandlerTelemetry;
  readonly hub: TaskHub;
  readonly runner: TaskRunner;
  /** Open streams per caller (`maxOpenStreamsPerCaller`). */
  readonly slots: PerCallerSlots;
  readonly openStreams: OpenStreams;
  /** Push configs and deliveries; `undefined` when push is off (the methods answer -32003). */
  readonly push: PushSide | undefined;
  readonly pushDispatcher: PushDispatcher | undefined;
  readonly maxOpenStreamsPerCaller: number | undefined;
  readonly turnedOff: ReadonlySet<MethodName>;
  readonly sendMessageWaitMs: number;
  readonly continueTasks: boolean;
  readonly messageIdsAreKeys: boolean;
  readonly extendedAgentCard: A2ARuntimeOptions["extendedAgentCard"];
  /** Shared by every stream: past maxBytes a client has a third of keepAliveMs to catch up; past 8× none. */
  readonly backlogBounds: BacklogBounds;
  #closing = false;

  constructor(options: A2ARuntimeOptions) {
    this.stores = options.stores;
    this.executor = options.executor;
    this.logger = options.logger;
    this.now = options.now;
    this.generateId = options.generateId;
    this.telemetry = options.telemetry;
    this.maxOpenStreamsPerCaller = options.maxOpenStreamsPerCaller;
    this.push = options.push;
    this.pushDispatcher = options.pushDispatcher;
    this.turnedOff = options.turnedOff ?? new Set();
    this.sendMessageWaitMs = options.sendMessageWaitMs ?? SEND_MESSAGE_WAIT_MS;
    this.continueTasks = options.continueTasks ?? true;
    this.messageIdsAreKeys = options.messageIdsAreKeys ?? true;
    this.extendedAgentCard = options.extendedAgentCard;
    this.backlogBounds = { maxBytes: options.maxStreamBacklogBytes, hardMaxBytes: 8 * options.maxStreamBacklogBytes };
    this.slots = new PerCallerSlots(options.maxOpenStreamsPerCaller);
    this.openStreams = new OpenStreams(options.keepAliveMs);
    this.hub = new TaskHub({
      tasks: options.stores.tasks,
      events: options.stores.events,
      logger: options.logger,
      instanceId: options.instanceId,
      terminalCache: { maxEntries: options.terminalTaskCacheSize, maxBytes: options.terminalTaskCacheBytes },
      onLost: (taskId) => this.runner.abortLocal(taskId),
    });
    this.runner = new TaskRunner({
      hub: this.hub,
      tasks: options.stores.tasks,
      events: options.stores.events,
      executor: options.executor,
      logger: options.logger,
      now: options.now,
      generateId: options.generateId,
      instanceId: options.instanceId,
      leaseMs: options.leaseMs,
      recoveryIntervalMs: options.recoveryIntervalMs,
      telemetry: options.telemetry,
    });
    // Tasks orphaned by an earlier crash are ended as soon as the runtime exists.
    void this.runner.recoverOrphans();
    // Deliveries left by an earlier run (or another instance's lapsed claims) go as soon as it exists too.
    this.pushDispatcher?.start();
  }

  /** Whether `close` has begun: new requests and streams are refused from then on. */
  get closing(): boolean {
    return this.#closing;
  }

  /** The task, from memory when this process knows it for certain, else from the store. */
  async findTask(workspaceId: string, taskId: string): Promise<TaskRecord> {
    const known = this.hub.known(workspaceId, taskId);
    if (known) return known;
    const record = await this.stores.tasks.get(workspaceId, taskId);
    // Another workspace's task is reported exactly like an unknown one.
    if (!record) throw TaskNotFoundError.forTask(taskId);
    this.hub.remember(record);
    return record;
  }

  /**
   * Ends open streams cleanly (clients reattach elsewhere), then closes the runner (see `TaskRunner.close`)
   * and the push dispatcher (see `PushDispatcher.close`) within the same grace.
   */
  async close(graceMs: number): Promise<void> {
    this.#closing = true;
    this.openStreams.endAll();
    await Promise.all([this.runner.close(graceMs), this.pushDispatcher?.close(graceMs)]);
  }
}
