import { expect } from "vitest";
import type { EventLog } from "../../ports/event-log.js";
import type { SseSink } from "../../ports/handler-response.js";
import type { NewTaskEvent, TaskRecord } from "../../ports/task-records.js";
import type { Task, TaskUpdateResult } from "../../protocol/schemas/a2a.js";
import { createInMemoryStores, type InMemoryStores } from "../../stores/in-memory.js";
import { OFF_THE_TICK, TaskSubscription } from "../streams/task-subscription.js";
import { TaskHub } from "./task-hub.js";

// Test set-up shared by the hub's tests (imported by nothing else): a hub that owns one working task.

const silent = { info() {}, warn() {}, error() {} };

/**
 * A hub over in-memory stores and the event log `makeEvents` builds on their task store, owning one
 * freshly created working task.
 */
export async function hubOwningATask<E extends EventLog>(
  makeEvents: (stores: InMemoryStores) => E,
  owned = true,
): Promise<{ hub: TaskHub; events: E; stores: InMemoryStores; taskId: string; record: TaskRecord }> {
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
  if (owned) hub.own(record);
  return { hub, events, stores, taskId: task.id, record };
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

/** A client that reads everything at once, keeping the `id:` and event name of every frame. */
export class RecordingClient implements SseSink {
  backlog = 0;
  /** The subscription writing to this client (set by `streamOn`). */
  subscription: TaskSubscription | undefined;
  readonly ids: number[] = [];
  readonly events: string[] = [];
  ended = false;
  write(chunk: string): void {
    const id = /^id: (\d+)\nevent: (\w+)/.exec(chunk);
    if (!id) return;
    this.ids.push(Number(id[1]));
    this.events.push(id[2] as string);
  }
  end(): void {
    this.ended = true;
  }
  abort(): void {}
}

const render = {
  eventJson: (event: { resultJson: string }) => event.resultJson,
  taskJson: JSON.stringify,
  messageJson: JSON.stringify,
};

/**
 * A stream of the task on `hub`, positioned after `cursor`, as a reattach with Last-Event-ID would be
 * (`keepAtEnd`: as a blocking SendMessage's wait follows it).
 */
export async function streamOn(
  hub: TaskHub,
  stores: InMemoryStores,
  taskId: string,
  cursor: number,
  keepAtEnd = false,
) {
  const client = new RecordingClient();
  const subscription = new TaskSubscription(
    taskId,
    "1",
    client,
    { maxBytes: 1 << 20, hardMaxBytes: 8 << 20 },
    cursor,
    OFF_THE_TICK,
    (s) => hub.unsubscribe(s),
    render,
  );
  client.subscription = subscription;
  hub.subscribe((await stores.tasks.get("ws", taskId)) as TaskRecord, subscription, keepAtEnd);
  return client;
}

/** Waits (up to about 2 s) until `check` holds, and fails the test if it never does. */
export async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2_000 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 1));
  expect(check()).toBe(true);
}
