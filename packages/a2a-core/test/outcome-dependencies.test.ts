import { describe, expect, it } from "vitest";
import type { TaskExecutionContext, TaskExecutor, TaskOutcome } from "../src/ports/task-executor.js";
import { createInMemoryStores } from "../src/stores/in-memory.js";
import { harnessPerTest, readFrames, waitFor } from "./support/handler-harness.js";

/**
 * An outcome's `dependsOn`: the executor returns without awaiting its last writes, and the task's end is
 * stored only if they succeed (the updates it emitted count among them); otherwise the task fails.
 */

const harness = harnessPerTest();

/** Emits one step without awaiting it, then returns at once with `dependsOn` (the step's emit among them). */
class UnawaitedExecutor implements TaskExecutor {
  taskId = "";
  returned = false;
  constructor(private readonly writes: () => Promise<unknown>[]) {}

  async execute(context: TaskExecutionContext): Promise<TaskOutcome> {
    this.taskId = context.taskId;
    const step = context.emit({ kind: "status", message: "robot-1 restocking" });
    step.catch(() => undefined);
    this.returned = true;
    return { state: "TASK_STATE_COMPLETED", message: "Done", dependsOn: [...this.writes(), step] };
  }
}

function quietLogger(errors: string[]) {
  return { info() {}, warn() {}, error: (_fields: unknown, message: string) => void errors.push(message) };
}

const finalState = (frames: Awaited<ReturnType<typeof readFrames>>) => frames.at(-1)?.result.status.state;

describe("an outcome that depends on writes", () => {
  it("ends the task completed once those writes succeeded, not before", async () => {
    let succeed!: () => void;
    const record = new Promise<void>((resolve) => {
      succeed = resolve;
    });
    const h = harness(new UnawaitedExecutor(() => [record]));
    const response = await h.stream();
    await waitFor(() => h.executor.returned);
    await new Promise((resolve) => setTimeout(resolve, 30));
    const { body } = await h.rpc("GetTask", { id: h.executor.taskId });
    expect(body.result.status.state).not.toBe("completed");
    succeed();
    const frames = await readFrames(response);
    expect(finalState(frames)).toBe("completed");
    expect(frames.some((frame) => frame.result.status?.message?.parts?.[0]?.text === "robot-1 restocking")).toBe(true);
  });

  it("ends the task failed when one of them fails", async () => {
    const errors: string[] = [];
    const h = harness(new UnawaitedExecutor(() => [Promise.resolve(), Promise.reject(new Error("row refused"))]), {
      logger: quietLogger(errors),
    });
    const frames = await readFrames(await h.stream());
    expect(finalState(frames)).toBe("failed");
    expect(errors).toContain("a write the task's outcome depends on failed");
  });

  it("ends the task failed when one of its own updates could not be stored", async () => {
    const stores = createInMemoryStores();
    const appendNumbered = stores.events.appendNumbered.bind(stores.events);
    let calls = 0;
    // The step's update is refused by the store; the end after it is not.
    stores.events.appendNumbered = (append, dependsOn) =>
      ++calls === 1 ? Promise.reject(new Error("disk full")) : appendNumbered(append, dependsOn);
    const h = harness(new UnawaitedExecutor(() => []), { stores });
    const frames = await readFrames(await h.stream());
    expect(finalState(frames)).toBe("failed");
  });
});
