// Test-only: the scripted executor both binding suites run the client against, and following a stream.
import {
  environmentExecutor,
  type TaskExecutionContext,
  type TaskExecutor,
  type TaskOutcome,
} from "@a2a-partner/a2a-core";
import { expect } from "vitest";
import type { A2AClient, TaskStreamEvent } from "../../src/index.js";

/** A task in `steps` status updates `stepMs` apart, then completed ("Done"); Environments are `store-…`. */
export class StepExecutor implements TaskExecutor {
  dispatched = 0;
  constructor(
    private readonly steps = 3,
    private readonly stepMs = 5,
  ) {}

  async hasEnvironment(_workspace: string, storeId: string): Promise<boolean> {
    return storeId.startsWith("store-");
  }

  /** A start names its Environment, checked as the reference server checks it (environmentExecutor). */
  readonly prepareStart = environmentExecutor(this).prepareStart;

  async execute(context: TaskExecutionContext): Promise<TaskOutcome> {
    this.dispatched++;
    for (let step = 1; step <= this.steps; step++) {
      await new Promise((resolve) => setTimeout(resolve, this.stepMs));
      if (context.signal.aborted) return { state: "TASK_STATE_FAILED" };
      await context.emit({
        kind: "status",
        message: `robot-1: step ${step}`,
        metadata: { robot: "robot-1", step, steps: this.steps, percent: Math.round((step / this.steps) * 100) },
      });
    }
    return { state: "TASK_STATE_COMPLETED", message: "Done" };
  }
}

export async function collect(stream: AsyncIterable<TaskStreamEvent>): Promise<TaskStreamEvent[]> {
  const events: TaskStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Starts "Restock aisle 5" and follows it to its end: the task, the three steps, the final event. */
export async function followToCompleted(c: A2AClient) {
  const stream = c.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
  const events = await collect(stream);
  expect(events.map((e) => `${e.type}:${e.eventId}`)).toEqual([
    "task:1",
    "update:2",
    "update:3",
    "update:4",
    "finished:5",
  ]);
  return stream;
}
