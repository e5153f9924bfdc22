import {
  applyTaskEvent,
  type NewTask,
  type PushConfig,
  type PushDelivery,
  type StoredTaskEvent,
  type Task,
} from "@a2a-partner/a2a-core";
import type { StoreFixtures } from "@a2a-partner/a2a-core/testing";
import { expect } from "vitest";
import type { Queryable } from "../../src/database.js";
import type { PostgresStores } from "../../src/index.js";

/** A config of `taskId` as the methods would store it (v1.0 unless told). */
export function pushConfig(taskId: string, id: string, overrides: Partial<PushConfig> = {}): PushConfig {
  return {
    id,
    taskId,
    url: `https://receiver.example/${id}`,
    version: "1.0",
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

/**
 * A first delivery of a task's seq-1 event to config `configId` (made by `pushConfig` with the token
 * `token-<id>`), as a claim and a start's hand-off both give it: the config, the task's workspace, the
 * task as started with its first message (stored apart: migration 0006), durable a moment ago.
 */
export function expectStartDelivery(
  delivery: PushDelivery,
  expected: { workspaceId: string; taskId: string; configId: string },
): void {
  const { workspaceId, taskId, configId } = expected;
  expect(delivery).toMatchObject({
    workspaceId,
    attempt: 1,
    config: { id: configId, taskId, token: `token-${configId}`, version: "1.0" },
    event: { taskId, seq: 1, event: "task" },
  });
  expect((delivery.event.result as { task: Task }).task.history).toHaveLength(1);
  expect(Date.parse(delivery.durableAt)).toBeGreaterThan(Date.now() - 60_000);
}

/** A `push_deliveries` row as a test reads it. */
export interface DeliveryRow {
  config_id: string;
  seq: number;
  attempts: number;
  claimed_by: string | null;
  given_up_at: Date | null;
  last_error: string | null;
}

/** The deliveries of a task, by config and seq (given up or not). */
export async function deliveriesOf(db: Queryable, taskId: string): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `select config_id, seq, attempts, claimed_by, given_up_at, last_error
       from push_deliveries where task_id = $1 order by config_id, seq`,
    [taskId],
  );
  return rows;
}

/** "<config> <seq>" for each delivery of `taskId`, in order: what the assertions compare. */
export async function deliveryKeys(db: Queryable, taskId: string): Promise<string[]> {
  return (await deliveriesOf(db, taskId)).map((row) => `${row.config_id} ${row.seq}`);
}

/**
 * A running task that moves through the numbered appends of its runner: `next` stores its next progress
 * event (through the group-commit writer) and answers whether the store took it.
 */
export class RunningTask {
  seq = 1;
  constructor(
    private readonly stores: PostgresStores,
    private readonly fixtures: StoreFixtures,
    public task: Task,
  ) {}

  static async start(
    stores: PostgresStores,
    fixtures: StoreFixtures,
    workspaceId: string,
    extra: Partial<NewTask> = {},
  ): Promise<RunningTask> {
    const record = await stores.tasks.create({ ...fixtures.newTask(workspaceId), ...extra });
    return new RunningTask(stores, fixtures, record.task);
  }

  /** The next event as numbered (without storing it). */
  numbered(): { event: StoredTaskEvent; snapshot: Task } {
    const entry = this.fixtures.update(this.task, this.seq * 10);
    const event: StoredTaskEvent = { taskId: this.task.id, seq: this.seq + 1, ...entry };
    return { event, snapshot: applyTaskEvent(this.task, entry.result) };
  }

  async next(): Promise<boolean> {
    const { event, snapshot } = this.numbered();
    const stored = await this.stores.events.appendNumbered({
      taskId: this.task.id,
      prevSeq: this.seq,
      events: [event],
      snapshot,
    });
    if (stored) {
      this.task = snapshot;
      this.seq++;
    }
    return stored;
  }
}
