import { describe, expect, it } from "vitest";
import type { NumberedAppend, TaskChangeListener, WatchOptions } from "../../ports/event-log.js";
import type { StoredTaskEvent } from "../../ports/task-records.js";
import { InMemoryEventLog } from "../../stores/in-memory.js";
import { hubOwningATask, progress, streamOn, until } from "./owned-task.fixture.js";
import { TaskHub } from "./task-hub.js";

// A stream on another process than the task's runner follows the task through the store's change
// notifications. When a notification carries the new events, the stream gets them without a read of
// the log, and still every event once and in order.

/**
 * One log both processes share, whose notifications carry the events of the append that caused them to
 * the watchers that follow the task for streams (as the PostgreSQL store's do), but for the one announcing `lostSeq`, which nobody hears; it counts reads.
 */
class CarryingEventLog extends InMemoryEventLog {
  reads = 0;
  lostSeq = 0;
  private appending: readonly StoredTaskEvent[] | undefined;

  override readAfter(taskId: string, afterSeq: number, limit?: number) {
    this.reads++;
    return super.readAfter(taskId, afterSeq, limit);
  }

  override appendNumbered(append: NumberedAppend): Promise<boolean> {
    // The in-memory log tells its watchers during the call.
    this.appending = append.events.map((event) => structuredClone(event));
    try {
      return super.appendNumbered(append);
    } finally {
      this.appending = undefined;
    }
  }

  override watch(taskId: string, listener: TaskChangeListener, options?: WatchOptions): () => void {
    return super.watch(taskId, (newest) => {
      if (newest === this.lostSeq) return;
      // Carried only to watchers that follow the task for streams (not to the process running it).
      const events = options?.following ? this.appending : undefined;
      listener(newest, events && { fromSeq: events[0]?.seq ?? 0, read: () => events });
    });
  }
}

/** A task run by one hub, and a second hub (another instance) over the same stores, with a stream. */
async function followedElsewhere() {
  const { hub, events, stores, taskId } = await hubOwningATask((stores) => new CarryingEventLog(stores.tasks));
  const elsewhere = new TaskHub({
    tasks: stores.tasks,
    events,
    logger: { info() {}, warn() {}, error() {} },
    instanceId: "other",
    terminalCache: { maxEntries: 10, maxBytes: 1024 * 1024 },
    onLost() {},
  });
  const append = (step: number, final = false) => hub.append(taskId, [progress(taskId, step, final)]);
  /** A stream on the other instance, positioned after `cursor` (a reattach with Last-Event-ID). */
  const follow = (cursor: number) => streamOn(elsewhere, stores, taskId, cursor);
  return { events, append, follow };
}

describe("TaskHub: a stream on another instance, with events carried by the notifications", () => {
  it("sends the carried events without reading the log, and reads only for the task's end", async () => {
    const { events, append, follow } = await followedElsewhere();
    await append(1);
    const client = await follow(2);
    await until(() => events.reads > 0); // a joining stream reads once
    await new Promise((resolve) => setTimeout(resolve, 10));
    const readsAfterJoin = events.reads;
    for (let step = 2; step <= 5; step++) await append(step);
    await until(() => client.ids.includes(6));
    expect(events.reads).toBe(readsAfterJoin);
    // The `final` frame needs the ended task: its `finished` comes through a read.
    await append(6, true);
    await until(() => client.ended);
    expect(client.ids).toEqual([1, 3, 4, 5, 6, 7, 8]); // the `task` frame, then after the cursor
    expect(client.events.slice(-2)).toEqual(["finished", "final"]);
    expect(events.reads).toBeGreaterThan(readsAfterJoin);
  });

  it("reads the log when a notification was missed, so the carried events would leave a gap", async () => {
    const { events, append, follow } = await followedElsewhere();
    const client = await follow(1);
    await until(() => events.reads > 0);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const readsAfterJoin = events.reads;
    events.lostSeq = 2;
    await append(1); // seq 2, its notification lost
    await append(2); // seq 3, carried alone
    await until(() => client.ids.includes(3));
    expect(client.ids).toEqual([1, 2, 3]);
    expect(events.reads).toBeGreaterThan(readsAfterJoin);
  });
});
