import type { EventLog } from "../../ports/event-log.js";
import type { NewTaskEvent, TaskRecord } from "../../ports/task-records.js";
import type { Task, TaskUpdateResult } from "../../protocol/schemas/a2a.js";
import { createInMemoryStores, type InMemoryStores } from "../../stores/in-memory.js";
import { TaskHub } from "./task-hub.js";

// Test set-up shared by the hub's tests (imported by nothing else): a hub that owns one working task.

const silent = { info() {}, warn() {}, error() {} };

/**
 * A hub over in-memory stores and the event log `makeEvents` builds on their task store, owning one
 * freshly created working task.
 */
export async function hubOwningATask<E extends EventLog>(
  makeEvents: (stores: InMemoryStores) => E,
): Promise<{ hub: TaskHub; events: E; stores: InMemoryStores; taskId: string }> {
  const stores = createInMemoryStores();
  const events = makeEvents(stores);
  const hub = new TaskHub({
    tasks: stores.tasks,
    events,
    logger: silent,
    instanceId: "me",
    terminalCache: { maxEntries: 10, maxBytes: 1024 * 1024 },
    onLost() {},
  });
  const task: Task = {
    id: crypto.randomUUID(),
    contextId: "ctx",
    status: { state: "TASK_STATE_WORKING", timestamp: new Date().toISOString() },
    artifacts: [],
    history: [],
    metadata: { storeId: "store-001" },
  };
  const record: TaskRecord = await stores.tasks.create({
    workspaceId: "ws",
    task,
    lease: { owner: "me", durationMs: 60_000 },
    createdAt: new Date().toISOString(),
  });
  hub.own(record);
  return { hub, events, stores, taskId: task.id };
}

/** A progress update of the task (its `finished`, completed, when `final`). */
export function progress(taskId: string, step: number, final = false): NewTaskEvent {
  const result: TaskUpdateResult = {
    statusUpdate: {
      taskId,
      contextId: "ctx",
      status: { state: final ? "TASK_STATE_COMPLETED" : "TASK_STATE_WORKING", timestamp: new Date().toISOString() },
      metadata: { step },
    },
  };
  return { event: final ? "finished" : "update", result, createdAt: new Date().toISOString() };
}
