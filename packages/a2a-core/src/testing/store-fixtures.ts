import type { NewTask, NewTaskEvent } from "../ports/task-records.js";
import { stateLabel, type Task, type TaskStatus } from "../protocol/schemas/a2a.js";

export const HOUR_MS = 3_600_000;
/** A lease expiry no test outlives. */
export const FAR_FUTURE = "2100-01-01T00:00:00.000Z";

/** How `finished` ends a task (the model's names). */
export type EndState = "TASK_STATE_COMPLETED" | "TASK_STATE_CANCELED" | "TASK_STATE_FAILED";

/** Builds the inputs the store suites write: tasks, progress updates and endings, on a clock of its own. */
export interface StoreFixtures {
  /** Strictly increasing timestamps, so "oldest first" orders are predictable. */
  clock: () => string;
  newTask: (
    workspaceId: string,
    overrides?: Partial<Pick<NewTask, "lease" | "createdAt">> & { contextId?: string },
  ) => NewTask;
  update: (task: Task, percent: number) => NewTaskEvent;
  finished: (task: Task, state?: EndState) => NewTaskEvent;
}

/** Fixtures on a clock of their own, from `start` (2025-01-01 by default), one second a step. */
export function storeFixtures(start = Date.UTC(2025, 0, 1)): StoreFixtures {
  let tick = 0;
  const clock = () => new Date(start + tick++ * 1000).toISOString();

  const newTask: StoreFixtures["newTask"] = (workspaceId, overrides = {}) => {
    const createdAt = overrides.createdAt ?? clock();
    return {
      workspaceId,
      task: {
        id: crypto.randomUUID(),
        contextId: overrides.contextId ?? crypto.randomUUID(),
        status: { state: "TASK_STATE_WORKING", timestamp: createdAt },
        artifacts: [],
        history: [{ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "restock aisle 4" }] }],
        metadata: { storeId: "store-001" },
      },
      lease: overrides.lease ?? { owner: "runner-a", durationMs: HOUR_MS },
      createdAt,
    };
  };

  /** A status update of `task` stamped now: progress (`update`) or its end (`finished`, a terminal state). */
  const statusEvent = (
    event: "update" | "finished",
    task: Task,
    status: (timestamp: string) => TaskStatus,
    metadata?: Record<string, unknown>,
  ): NewTaskEvent => {
    const at = clock();
    return {
      event,
      createdAt: at,
      result: {
        statusUpdate: {
          taskId: task.id,
          contextId: task.contextId,
          status: status(at),
          ...(metadata === undefined ? {} : { metadata }),
        },
      },
    };
  };

  const update: StoreFixtures["update"] = (task, percent) =>
    statusEvent("update", task, (timestamp) => ({ state: "TASK_STATE_WORKING", timestamp }), {
      robot: "robot-1",
      percent,
    });

  const finished: StoreFixtures["finished"] = (task, state = "TASK_STATE_COMPLETED") =>
    statusEvent("finished", task, (timestamp) => ({
      state,
      timestamp,
      message: { messageId: crypto.randomUUID(), role: "ROLE_AGENT", parts: [{ text: stateLabel(state) }] },
    }));

  return { clock, newTask, update, finished };
}

/** Resolves with `promise`, or fails the test if it takes longer than `ms`. */
export async function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`still pending after ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The value, or a failed test when it is undefined. */
export function must<T>(value: T | undefined): T {
  if (value === undefined) throw new Error("expected a value");
  return value;
}

/** Resolves after `ms` (no timer module: the kit runs wherever the stores do). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
