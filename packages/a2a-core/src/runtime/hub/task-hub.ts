import type { AppendDependencies } from "../../ports/append-dependencies.js";
import type { EventLog } from "../../ports/event-log.js";
import type { Logger } from "../../ports/logger.js";
import type { NewTaskEvent, StoredTaskEvent, TaskRecord } from "../../ports/task-records.js";
import type { TaskStore } from "../../ports/task-store.js";
import { isTerminalState } from "../../protocol/schemas/a2a.js";
import type { TaskSubscription } from "../streams/task-subscription.js";
import type { FeedContext } from "./feed-context.js";
import { TaskFeed } from "./task-feed.js";
import { type TerminalCacheBounds, TerminalTaskCache } from "./terminal-task-cache.js";

export interface TaskHubOptions {
  tasks: TaskStore;
  events: EventLog;
  logger: Logger;
  /** The lease owner name of this process. */
  instanceId: string;
  /** How many ended tasks, and how many bytes of them, to keep in memory for GetTask and reattaches. */
  terminalCache: TerminalCacheBounds;
  /** A task this process ran ended or moved elsewhere: stop its executor. */
  onLost(taskId: string): void;
}

/**
 * The process's live tasks: the ones it runs (snapshot and events in memory, numbered here, published
 * to local streams as soon as they are durable) and the ones its streams watch (read from the log when
 * the store says they changed). The durable log stays the truth for replays, other instances and
 * restarts; memory only serves what this process already knows to be committed.
 */
export class TaskHub {
  private readonly feeds = new Map<string, TaskFeed>();
  private readonly terminal: TerminalTaskCache;
  /**
   * Tasks someone is likely to ask for once they have ended: read from memory while they ran (a GetTask
   * poll), or awaited by a blocking SendMessage. Only these are kept in the ended-task cache at their end;
   * keeping every ended task there (most are followed by a stream that has the end already) cost ~8 %
   * more CPU a task, in the heap's collections and the entries' size estimates (bench/NOTES.md). Any
   * other is cached when first read from the store.
   */
  private readonly keptAtEnd = new Set<string>();
  private readonly context: FeedContext;

  constructor(options: TaskHubOptions) {
    this.terminal = new TerminalTaskCache(options.terminalCache);
    this.context = {
      tasks: options.tasks,
      events: options.events,
      logger: options.logger,
      instanceId: options.instanceId,
      onLost: (taskId) => options.onLost(taskId),
      onTerminal: (record) => {
        if (this.keptAtEnd.delete(record.task.id)) this.terminal.put(record);
      },
      onIdle: (feed) => {
        if (this.feeds.get(feed.taskId) !== feed) return;
        this.feeds.delete(feed.taskId);
        this.keptAtEnd.delete(feed.taskId);
      },
    };
  }

  /** A task this process just created and will run. */
  own(record: TaskRecord): void {
    // A retry of this start may have subscribed first (its answer came back before ours): its streams
    // move to the owned feed, which has everything from here on.
    const previous = this.feeds.get(record.task.id);
    const streams = previous?.takeSubscribers() ?? [];
    // The previous feed's end forgets whether the task is to be kept at its end; the streams' wait is not over.
    const keep = this.keptAtEnd.has(record.task.id);
    previous?.close();
    const feed = new TaskFeed(this.context, record, true);
    this.feeds.set(record.task.id, feed);
    if (keep) this.keptAtEnd.add(record.task.id);
    for (const stream of streams) feed.subscribe(stream);
  }

  owns(taskId: string): boolean {
    return this.feeds.get(taskId)?.isOwned ?? false;
  }

  /**
   * Appends events to a task this process runs, in one commit (several: the artifacts a task ends with
   * and its `finished`), once `dependsOn` succeeded; `undefined` when the task has ended (or is not ours).
   */
  append(
    taskId: string,
    entries: readonly NewTaskEvent[],
    dependsOn?: AppendDependencies,
  ): Promise<StoredTaskEvent[] | undefined> {
    const feed = this.feeds.get(taskId);
    if (!feed?.isOwned) return Promise.resolve(undefined);
    return feed.append(entries, dependsOn);
  }

  /**
   * The task as this process knows it for certain without asking the store: a task it runs (its
   * committed snapshot) or one that has ended (terminal tasks never change). Shared: do not mutate.
   */
  known(workspaceId: string, taskId: string): TaskRecord | undefined {
    const feed = this.feeds.get(taskId);
    if (!feed?.isOwned) return this.terminal.get(workspaceId, taskId);
    if (feed.workspaceId !== workspaceId) return undefined;
    this.keptAtEnd.add(taskId);
    return feed.current;
  }

  /** Remembers a task read from the store if it has ended. */
  remember(record: TaskRecord): void {
    if (isTerminalState(record.task.status.state)) this.terminal.put(record);
  }

  /**
   * Starts a stream on `record`'s task: writes the `task` frame, replays what follows the
   * subscription's cursor, then follows the task live. `keepAtEnd`: the ended task will be read (a
   * blocking SendMessage answers with it), so it is kept in the ended-task cache.
   */
  subscribe(record: TaskRecord, subscription: TaskSubscription, keepAtEnd = false): void {
    subscription.sendSnapshot(record.task);
    if (subscription.isEnded) return;
    let feed = this.feeds.get(record.task.id);
    if (!feed) {
      feed = new TaskFeed(this.context, record, false);
      this.feeds.set(record.task.id, feed);
    } else {
      feed.noteRecord(record);
    }
    if (keepAtEnd) this.keptAtEnd.add(record.task.id);
    feed.subscribe(subscription);
  }

  unsubscribe(subscription: TaskSubscription): void {
    this.feeds.get(subscription.taskId)?.unsubscribe(subscription);
  }
}
