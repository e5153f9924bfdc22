import type { TaskSubscription } from "../streams/task-subscription.js";
import { type FeedContext, READ_LIMIT, untilDrained } from "./feed-context.js";
import { toLiveEvent } from "./live-event.js";
import { SubscriberSet } from "./subscriber-set.js";

/** What catching up needs from the feed of a task this process runs. */
export interface CatchUpFeed {
  /** The newest event the feed has published: the log may hold later ones it has not (yet). */
  published(): number;
  /** Takes the stream over if it can now (its window covers the cursor, or it no longer runs the task). */
  admit(subscription: TaskSubscription): boolean;
  /** A stream is done catching up, whichever way. */
  done(): unknown;
}

/**
 * Streams that joined a task this process runs further back than its in-memory window: each reads what
 * it lacks from the log (as a watched feed would), in order and no further than the feed has published,
 * until the feed admits it; no gap (the window is contiguous up to what was published) and no duplicate
 * (a stream never writes an event at or below its cursor).
 */
export class CatchingUp {
  private readonly streams = new SubscriberSet<TaskSubscription>();

  constructor(
    private readonly context: Pick<FeedContext, "events" | "logger">,
    private readonly taskId: string,
    private readonly feed: CatchUpFeed,
  ) {}

  get size(): number {
    return this.streams.size;
  }

  start(subscription: TaskSubscription): void {
    this.streams.add(subscription);
    this.run(subscription)
      .catch((error: unknown) => {
        this.context.logger.error({ err: error, taskId: this.taskId }, "task stream ended by an error");
        subscription.end();
      })
      .finally(() => {
        this.streams.delete(subscription);
        this.feed.done();
      });
  }

  delete(subscription: TaskSubscription): void {
    this.streams.delete(subscription);
  }

  /** Every stream still catching up, handed over (they stop reading here). */
  takeAll(): TaskSubscription[] {
    const taken = this.streams.toArray();
    this.streams.clear();
    return taken;
  }

  private async run(subscription: TaskSubscription): Promise<void> {
    while (!this.handedOver(subscription)) {
      // Never before seq 2: the `task` frame (seq 1) is written from the snapshot.
      const batch = await this.context.events.readAfter(this.taskId, Math.max(1, subscription.cursor), READ_LIMIT);
      if (this.handedOver(subscription)) return;
      const before = subscription.cursor;
      for (const stored of batch) {
        if (stored.seq > this.feed.published()) break;
        subscription.deliver(toLiveEvent(stored));
      }
      // Every published event is durable, so a read after the cursor never comes back short of the window.
      if (subscription.cursor === before && !subscription.isEnded) throw new Error("the event log is behind the feed");
      await untilDrained(() => subscription.overBacklog);
    }
  }

  /** Between two reads: the stream ended, was taken elsewhere, or the feed admits it now. */
  private handedOver(subscription: TaskSubscription): boolean {
    if (subscription.isEnded || !this.streams.some((member) => member === subscription)) return true;
    if (!this.feed.admit(subscription)) return false;
    this.streams.delete(subscription);
    return true;
  }
}
