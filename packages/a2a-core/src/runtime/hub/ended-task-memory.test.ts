import { describe, expect, it } from "vitest";
import type { TaskRecord } from "../../ports/task-records.js";
import { InMemoryEventLog } from "../../stores/in-memory.js";
import { hubOwningATask, progress, streamOn, until } from "./owned-task.fixture.js";

// Which ended tasks the hub answers from memory: those someone is likely to ask for once they end. Any
// other is read from the store when asked for (`known` is undefined) and kept from then on.

/** A working task; `owned`: this process runs it (else another instance does, and this one follows it). */
async function runningTask(owned = true) {
  return hubOwningATask((stores) => new InMemoryEventLog(stores.tasks), owned);
}

describe("TaskHub: ended tasks kept in memory", () => {
  it("keeps a task polled while it ran: its end is answered from memory", async () => {
    const { hub, taskId } = await runningTask();
    expect(hub.known("ws", taskId)?.task.status.state).toBe("TASK_STATE_WORKING");
    await hub.append(taskId, [progress(taskId, 1, true)]);
    await until(() => hub.known("ws", taskId)?.task.status.state === "TASK_STATE_COMPLETED");
  });

  it("keeps a task a blocking wait follows", async () => {
    const { hub, stores, taskId } = await runningTask();
    const waiter = await streamOn(hub, stores, taskId, 1, true);
    await hub.append(taskId, [progress(taskId, 1, true)]);
    await until(() => waiter.ended);
    expect(hub.known("ws", taskId)?.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("keeps a task a blocking wait followed before this process took it over (a start's retry answered first)", async () => {
    const { hub, stores, taskId, record } = await runningTask(false);
    const waiter = await streamOn(hub, stores, taskId, 1, true);
    hub.own(record);
    await hub.append(taskId, [progress(taskId, 1, true)]);
    await until(() => waiter.ended);
    expect(hub.known("ws", taskId)?.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("forgets a blocking wait that gave up before the end: the task a later stream follows is not kept", async () => {
    const { hub, events, stores, taskId } = await runningTask(false);
    const waiter = await streamOn(hub, stores, taskId, 1, true);
    // The wait's client went away while another instance ran the task.
    waiter.subscription?.detach();
    const stream = await streamOn(hub, stores, taskId, 1);
    await events.append(taskId, progress(taskId, 1, true));
    await until(() => stream.ended);
    expect(hub.known("ws", taskId)).toBeUndefined();
  });

  it("does not keep a task nobody asked for while it ran; once read from the store, it is kept", async () => {
    const { hub, stores, taskId } = await runningTask();
    const stream = await streamOn(hub, stores, taskId, 1);
    await hub.append(taskId, [progress(taskId, 1, true)]);
    await until(() => stream.ended);
    expect(hub.known("ws", taskId)).toBeUndefined();
    hub.remember((await stores.tasks.get("ws", taskId)) as TaskRecord);
    expect(hub.known("ws", taskId)?.task.status.state).toBe("TASK_STATE_COMPLETED");
  });

  it("answers another workspace's task from neither, and does not keep it for asking", async () => {
    const { hub, taskId } = await runningTask();
    expect(hub.known("other", taskId)).toBeUndefined();
    await hub.append(taskId, [progress(taskId, 1, true)]);
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(hub.known("ws", taskId)).toBeUndefined();
  });
});
