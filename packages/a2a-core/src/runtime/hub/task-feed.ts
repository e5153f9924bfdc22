import type { AppendDependencies } from "../../ports/append-dependencies.js";
import { applyTaskEvent } from "../../ports/apply-task-event.js";
import type { CarriedEvents } from "../../ports/event-log.js";
import type { NewTaskEvent, TaskRecord } from "../../ports/task-records.js";
import { isTerminalState, type Task, type TaskUpdateResult } from "../../protocol/schemas/a2a.js";
import type { TaskSubscription } from "../streams/task-subscription.js";
import { type Appended, AppendQueue } from "./append-queue.js";
import { deliverCarried } from "./carried-delivery.js";
import { CatchingUp } from "./catch-up.js";
import { type FeedContext, READ_LIMIT, untilDrained } from "./feed-context.js";
import { type LiveEvent, toLiveEvent } from "./live-event.js";
import { numberEvents } from "./number-events.js";
import { RecentEvents } from "./recent-events.js";
import { SubscriberSet } from "./subscriber-set.js";

/**
 * One task's events on their way to this process's streams. Two modes:
 * - owned (this process runs the task): it numbers the task's events, and each one reaches the streams
 *   from memory as soon as its write committed: no read-back.
 * - watched (another process runs it, or nobody does): the store's change notifications wake it; it sends
 *   the events they carry, or reads the new events from the log, once for all of its streams.
 * A feed that learns somebody else wrote to its owned task (a cancel on another instance, a takeover)
 * re-reads the log and continues as a watched feed.
 */
export class TaskFeed {
  readonly taskId: string;
  readonly workspaceId: string;
  /** The newest state this process knows: committed, never ahead of the log. */
  private record: TaskRecord;
  private owned: boolean;
  /** An owned task's newest events, for streams that join late or resume (older ones: the log). */
  private readonly recent: RecentEvents;
  private readonly subscribers = new SubscriberSet<TaskSubscription>();
  /** Streams that joined while a read was under way; they take part from the next read on. */
  private joining: SubscriberSet<TaskSubscription> | undefined; // made on first use: most feeds never need it
  /** Streams of an owned task reading from the log what left its window before they joined. */
  private catchingUp: CatchingUp | undefined;
  private readonly unwatch: () => void;
  /** The owner's appends, one group after another; resyncs queue behind them. */
  private readonly appends = new AppendQueue((entries, dependsOn) => this.appendNow(entries, false, dependsOn));
  /** The sequence number of the owner's append under way, 0 when none is. */
  private inFlight = 0;
  private reading = false;
  private readAgain = false;
  private checkExistence = false;
  private closed = false;

  constructor(
    private readonly context: FeedContext,
    record: TaskRecord,
    owned: boolean,
  ) {
    this.taskId = record.task.id;
    this.workspaceId = record.workspaceId;
    this.record = record;
    this.owned = owned;
    this.recent = new RecentEvents(record.lastSeq);
    const listener = (newest: number | undefined, carried?: CarriedEvents) => this.onChange(newest, carried);
    this.unwatch = context.events.watch(this.taskId, listener, owned ? undefined : { following: true });
  }

  get isOwned(): boolean {
    return this.owned;
  }

  /** The committed snapshot of an owned task. */
  get current(): TaskRecord {
    return this.record;
  }

  get isIdle(): boolean {
    return !this.owned && this.subscribers.size === 0 && !this.joining?.size && !this.catchingUp?.size && !this.reading;
  }

  /**
   * Owner only: numbers, stores and publishes the task's next events (one, or a few that belong
   * together: they are stored in one commit or not at all), if `dependsOn` succeeds.
   */
  append(entries: readonly NewTaskEvent[], dependsOn?: AppendDependencies): Appended {
    return this.appends.append(entries, dependsOn);
  }

  /** A stream joins, positioned after `cursor` (its `task` frame is already written). */
  subscribe(subscription: TaskSubscription): void {
    if (this.admit(subscription)) return;
    // An owned task whose window has moved past the cursor: the log first, then the window and live.
    this.catchingUp ??= new CatchingUp(this.context, this.taskId, {
      published: () => this.record.lastSeq,
      admit: (caughtUp) => this.admit(caughtUp),
      done: () => this.isIdle && this.close(),
    });
    this.catchingUp.start(subscription);
  }

  /** Takes a stream in: an owned task's window replayed, then live; a watched task's next read. */
  private admit(subscription: TaskSubscription): boolean {
    if (!this.owned) {
      this.joining ??= new SubscriberSet();
      this.joining.add(subscription);
      void this.read();
      return true;
    }
    if (!this.recent.covers(subscription.cursor)) return false;
    this.subscribers.add(subscription);
    for (const event of this.recent.since(subscription.cursor)) {
      if (subscription.isEnded) break;
      subscription.deliver(event, () => this.record.task);
    }
    return true;
  }

  unsubscribe(subscription: TaskSubscription): void {
    this.subscribers.delete(subscription);
    this.joining?.delete(subscription);
    this.catchingUp?.delete(subscription);
    if (this.isIdle) this.close();
  }

  /**
   * Hands over every stream of this feed (the feed is being replaced by an owned one for the same task:
   * a concurrent retry subscribed before the start that created the task took it over).
   */
  takeSubscribers(): TaskSubscription[] {
    const taken = [this.subscribers.toArray(), this.joining?.toArray() ?? [], this.catchingUp?.takeAll() ?? []].flat();
    this.subscribers.clear();
    this.joining?.clear();
    return taken;
  }

  /** A newer snapshot read by a request (watched mode only: an owned feed is never behind). */
  noteRecord(record: TaskRecord): void {
    if (!this.owned && record.lastSeq > this.record.lastSeq) this.record = record;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unwatch();
    this.context.onIdle(this);
  }

  private async appendNow(entries: readonly NewTaskEvent[], retried: boolean, deps?: AppendDependencies): Appended {
    if (!this.owned || isTerminalState(this.record.task.status.state)) return undefined;
    const prevSeq = this.record.lastSeq;
    const { stored: events, snapshot } = numberEvents(this.record, entries);
    this.inFlight = prevSeq + events.length;
    let storedOk: boolean;
    try {
      storedOk = await this.context.events.appendNumbered({ taskId: this.taskId, prevSeq, events, snapshot }, deps);
    } finally {
      this.inFlight = 0;
    }
    if (!storedOk) {
      // Somebody else wrote to the task: learn what, then number after it (or stop, if it ended).
      await this.resync();
      return retried ? undefined : this.appendNow(entries, true, deps);
    }
    // Each event is published with the snapshot after it, so a `finished` among them ends with the task.
    let published = this.record.task;
    for (const event of events) {
      published = applyTaskEvent(published, event.result as TaskUpdateResult);
      this.record = { ...this.record, task: published, lastSeq: event.seq };
      this.publish(toLiveEvent(event));
    }
    return events;
  }

  /** An event of an owned task is durable: every stream gets it now, from memory. */
  private publish(event: LiveEvent): void {
    this.recent.push(event);
    for (const subscription of this.subscribers.toArray()) subscription.deliver(event, () => this.record.task);
    if (event.event === "finished") this.ended();
  }

  private ended(): void {
    this.context.onTerminal(this.record);
    this.owned = false;
    this.recent.clear(this.record.lastSeq);
    if (this.isIdle) this.close();
  }

  private onChange(newest: number | undefined, carried?: CarriedEvents): void {
    if (this.owned) {
      // Our own commits announce themselves too; only a sequence number beyond ours is news.
      const known = Math.max(this.inFlight, this.record.lastSeq);
      if (newest !== undefined && newest <= known) return;
      // The task itself goes on; only its streams here end.
      this.appends.after(() => this.resync()).catch((error: unknown) => this.endStreamsAfter(error));
      return;
    }
    if (newest === undefined) this.checkExistence = true;
    else if (!this.anyBehind(newest)) return;
    if (carried && !this.reading && !this.joining?.size && deliverCarried(this.subscribers, carried)) return;
    void this.read();
  }

  /**
   * Owner only: somebody else wrote to the task. Take over what the log has (publishing it), and give
   * the task up if it ended or is no longer ours.
   */
  private async resync(): Promise<void> {
    if (!this.owned) return;
    const record = await this.context.tasks.get(this.workspaceId, this.taskId);
    if (!record) {
      this.owned = false;
      this.context.onLost(this.taskId);
      for (const subscription of this.takeSubscribers()) subscription.end();
      if (this.isIdle) this.close();
      return;
    }
    const missed = await this.context.events.readAfter(this.taskId, this.record.lastSeq);
    const lastSeq = this.record.lastSeq;
    this.record = record;
    // Publishing a `finished` written elsewhere ends the feed's ownership (see ended()).
    for (const stored of missed) {
      if (stored.seq > record.lastSeq || stored.seq <= lastSeq) continue;
      this.publish(toLiveEvent(stored));
    }
    if (this.owned && (isTerminalState(record.task.status.state) || record.lease?.owner !== this.context.instanceId)) {
      this.owned = false;
      this.recent.clear(this.record.lastSeq);
    }
    // Whichever way it went, a task that is no longer ours must have its executor stopped.
    if (!this.owned) {
      this.context.onLost(this.taskId);
      void this.read();
    }
  }

  private anyBehind(newest: number): boolean {
    return this.subscribers.some((subscription) => subscription.cursor < newest) || (this.joining?.size ?? 0) > 0;
  }

  /**
   * Watched mode: reads what the log has after the furthest-behind stream and hands it to every stream,
   * one read at a time, again while more may have arrived.
   */
  private async read(): Promise<void> {
    if (this.owned) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    try {
      do {
        this.readAgain = false;
        for (const subscription of this.joining?.toArray() ?? []) this.subscribers.add(subscription);
        this.joining?.clear();
        if (this.subscribers.size === 0) break;
        let from = Number.POSITIVE_INFINITY;
        for (const subscription of this.subscribers.toArray()) from = Math.min(from, subscription.cursor);
        const batch = await this.context.events.readAfter(this.taskId, from, READ_LIMIT);
        if (batch.length === 0 && this.checkExistence) {
          this.checkExistence = false;
          // Woken with nothing to read and no sequence number: the task may be gone (deleted).
          if (!(await this.context.tasks.get(this.workspaceId, this.taskId))) {
            for (const subscription of this.subscribers.toArray()) subscription.end();
            break;
          }
        }
        for (const stored of batch) {
          const event = toLiveEvent(stored);
          const terminal = stored.event === "finished" ? await this.terminalTask() : undefined;
          for (const subscription of this.subscribers.toArray()) subscription.deliver(event, () => terminal);
        }
        if (batch.length >= READ_LIMIT) {
          this.readAgain = true;
          await untilDrained(() => this.subscribers.some((s) => s.overBacklog));
        }
      } while (this.readAgain || (this.joining?.size ?? 0) > 0);
    } catch (error) {
      this.endStreamsAfter(error);
    } finally {
      this.reading = false;
      if (this.isIdle) this.close();
    }
  }

  /**
   * The store or the log cannot be read (an outage): the streams end cleanly; their clients reattach,
   * perhaps to an instance that can reach the database, and lose nothing.
   */
  private endStreamsAfter(error: unknown): void {
    this.context.logger.error({ err: error, taskId: this.taskId }, "task stream ended by an error");
    for (const subscription of this.takeSubscribers()) subscription.end();
  }

  /** The task after its `finished` event, for the `final` frame. */
  private async terminalTask(): Promise<Task> {
    if (isTerminalState(this.record.task.status.state)) return this.record.task;
    const record = await this.context.tasks.get(this.workspaceId, this.taskId);
    if (record) {
      this.record = record;
      if (isTerminalState(record.task.status.state)) this.context.onTerminal(record);
    }
    return this.record.task;
  }
}
