import { describe, expect, it } from "vitest";
import { InMemoryEventLog } from "../../stores/in-memory.js";
import { hubOwningATask, progress, streamOn, until } from "./owned-task.fixture.js";
import { RECENT_EVENTS } from "./recent-events.js";

// A task this process runs keeps only its newest events in memory; a stream joining further back reads
// the rest from the log, then the window, then live: every event once, in order.

/** An event log that counts the reads of old events. */
class CountingEventLog extends InMemoryEventLog {
  reads = 0;
  override readAfter(taskId: string, afterSeq: number, limit?: number) {
    this.reads++;
    return super.readAfter(taskId, afterSeq, limit);
  }
}

async function runningTask() {
  const { hub, events, stores, taskId } = await hubOwningATask((stores) => new CountingEventLog(stores.tasks));
  const append = (step: number, final = false) => hub.append(taskId, [progress(taskId, step, final)]);
  /** A stream positioned after `cursor`, as a reattach with Last-Event-ID would be. */
  const join = async (cursor: number) => ({ client: await streamOn(hub, stores, taskId, cursor) });
  return { events, append, join };
}

describe("TaskHub: a stream joining a running task late", () => {
  const older = RECENT_EVENTS.maxEvents * 3;

  it("reads the events that left memory from the log, then follows live, with no gap or duplicate", async () => {
    const { events, append, join } = await runningTask();
    for (let step = 1; step <= older; step++) await append(step);
    events.reads = 0;
    const { client } = await join(0); // Last-Event-ID: 0, as a client may send
    // Events keep coming while it catches up, and the task ends.
    const more = Array.from({ length: 50 }, (_, i) => append(older + 1 + i));
    const finished = append(older + 51, true);
    await Promise.all([...more, finished]);
    await until(() => client.ended);
    const last = older + 52; // seq 1 is the task, then `older` + 50 updates, then finished
    expect(client.ids).toEqual([...Array.from({ length: last }, (_, i) => i + 1), last + 1]);
    expect(client.events.at(-2)).toBe("finished");
    expect(client.events.at(-1)).toBe("final");
    expect(events.reads).toBeGreaterThan(0);
  });

  it("replays from memory alone when its cursor is within the window", async () => {
    const { events, append, join } = await runningTask();
    for (let step = 1; step <= older; step++) await append(step);
    events.reads = 0;
    const { client } = await join(older - 10);
    expect(client.ids).toEqual([1, ...Array.from({ length: 11 }, (_, i) => older - 9 + i)]);
    expect(events.reads).toBe(0);
  });

  it("goes on from the log when the task ends while it catches up", async () => {
    const { append, join } = await runningTask();
    for (let step = 1; step <= older; step++) await append(step);
    const { client } = await join(1);
    await append(older + 1, true);
    await until(() => client.ended);
    expect(client.ids).toEqual([...Array.from({ length: older + 2 }, (_, i) => i + 1), older + 3]);
  });
});
