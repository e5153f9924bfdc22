import { describe, expect, it } from "vitest";
import type { NumberedAppend } from "../../ports/event-log.js";
import { InMemoryEventLog } from "../../stores/in-memory.js";
import { hubOwningATask, progress } from "./owned-task.fixture.js";

/** An event log whose commits wait until the test lets them through, one at a time. */
class GatedEventLog extends InMemoryEventLog {
  readonly commits: NumberedAppend[] = [];
  failNext = false;
  private gates: (() => void)[] = [];

  override async appendNumbered(append: NumberedAppend): Promise<boolean> {
    this.commits.push(append);
    await new Promise<void>((resolve) => this.gates.push(resolve));
    if (this.failNext) {
      this.failNext = false;
      throw new Error("connection lost");
    }
    return super.appendNumbered(append);
  }

  /** Resolves once `n` commits have been asked for. */
  async started(n: number): Promise<void> {
    while (this.commits.length < n) await new Promise((resolve) => setTimeout(resolve, 1));
  }

  /** Lets the commit under way finish. */
  async release(): Promise<void> {
    while (this.gates.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    this.gates.shift()?.();
  }
}

async function ownedTask() {
  return hubOwningATask((stores) => new GatedEventLog(stores.tasks));
}

describe("TaskHub: events of a task this process runs", () => {
  it("stores appends asked for in one go in one commit", async () => {
    const { hub, events, taskId } = await ownedTask();
    const together = [1, 2].map((step) => hub.append(taskId, [progress(taskId, step)]));
    await events.release();
    expect((await Promise.all(together)).map((stored) => stored?.map((e) => e.seq))).toEqual([[2], [3]]);
    expect(events.commits).toHaveLength(1);
  });

  it("stores the events asked for while a commit is under way together, in the next commit, each caller getting its own", async () => {
    const { hub, events, taskId } = await ownedTask();
    const settled: number[] = [];
    const first = hub.append(taskId, [progress(taskId, 1)]);
    await events.started(1);
    const later = [2, 3, 4].map((step) =>
      hub.append(taskId, [progress(taskId, step)]).then((stored) => {
        settled.push(step);
        return stored;
      }),
    );
    await events.release();
    expect((await first)?.map((e) => e.seq)).toEqual([2]);
    // Nothing of steps 2-4 is reported stored before their commit returns.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(settled).toEqual([]);
    await events.release();
    expect((await Promise.all(later)).map((stored) => stored?.map((e) => e.seq))).toEqual([[3], [4], [5]]);
    expect(events.commits.map((c) => c.events.map((e) => e.seq))).toEqual([[2], [3, 4, 5]]);
    expect(
      (await events.readAfter(taskId, 1)).map((e) =>
        "statusUpdate" in e.result ? e.result.statusUpdate.metadata?.step : undefined,
      ),
    ).toEqual([1, 2, 3, 4]);
  });

  it("fails every append of a group whose commit failed, and numbers the next one after what is stored", async () => {
    const { hub, events, taskId } = await ownedTask();
    const first = hub.append(taskId, [progress(taskId, 1)]);
    await events.started(1);
    const failing = [hub.append(taskId, [progress(taskId, 2)]), hub.append(taskId, [progress(taskId, 3)])];
    await events.release();
    await first;
    events.failNext = true;
    await events.release();
    for (const append of failing) await expect(append).rejects.toThrow("connection lost");
    const next = hub.append(taskId, [progress(taskId, 4)]);
    await events.release();
    expect((await next)?.map((e) => e.seq)).toEqual([3]);
  });

  it("refuses progress asked for while an earlier commit was failing, unstored, so no event follows one that was lost", async () => {
    const { hub, events, taskId } = await ownedTask();
    const lost = hub.append(taskId, [progress(taskId, 1)]);
    await events.started(1);
    // Asked for while step 1's commit is under way, before anyone knows it will fail.
    const queued = hub.append(taskId, [progress(taskId, 2)]);
    // Asked for by code that saw step 1 fail, in the same turn: it knows, so it is stored.
    const afterSeeingIt = lost.catch(() => hub.append(taskId, [progress(taskId, 3)]));
    events.failNext = true;
    await events.release();
    await expect(lost).rejects.toThrow("connection lost");
    await expect(queued).rejects.toThrow("an earlier event of this task could not be stored");
    await events.release();
    expect((await afterSeeingIt)?.map((e) => e.seq)).toEqual([2]);
    expect(events.commits.map((c) => c.events.map((e) => e.seq))).toEqual([[2], [2]]);
  });

  it("stores the task's end even when it was asked for while an earlier commit was failing", async () => {
    const { hub, events, taskId } = await ownedTask();
    const lost = hub.append(taskId, [progress(taskId, 1)]);
    await events.started(1);
    // A cancel arriving while step 1's commit is under way: the task ends, whatever happened to step 1.
    const ending = hub.append(taskId, [progress(taskId, 2, true)]);
    events.failNext = true;
    await events.release();
    await expect(lost).rejects.toThrow("connection lost");
    await events.release();
    expect((await ending)?.map((e) => [e.seq, e.event])).toEqual([[2, "finished"]]);
  });

  it("lets nothing join a group after the task's finished: later appends learn the task ended", async () => {
    const { hub, events, taskId } = await ownedTask();
    const first = hub.append(taskId, [progress(taskId, 1)]);
    await events.started(1);
    const finished = hub.append(taskId, [progress(taskId, 2, true)]);
    const tooLate = hub.append(taskId, [progress(taskId, 3)]);
    await events.release();
    await first;
    await events.release();
    expect((await finished)?.map((e) => e.event)).toEqual(["finished"]);
    await expect(tooLate).resolves.toBeUndefined();
    expect(events.commits).toHaveLength(2);
  });
});
