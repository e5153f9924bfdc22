import { type AppendDependencies, isDependencyFailed } from "../../ports/append-dependencies.js";
import type { Logger } from "../../ports/logger.js";
import type { TaskOutcome } from "../../ports/task-executor.js";

// An outcome's `dependsOn`, as its end is stored. The executor's own emits are left out: each is stored
// in the end's commit or in an earlier one (whose loss refuses the end, see AppendGroup.settle), and
// waiting on one would wait on the end itself.

// A mark on the promise itself rather than a WeakSet of them: no weak table, with an entry for every
// event emitted, for the garbage collector to go through.
const EMITTED = Symbol("a2a.emitted");

type Marked = PromiseLike<unknown> & { [EMITTED]?: true };

/** Marks a promise `emit` returned to an executor. */
export function emitted<T extends PromiseLike<unknown>>(emit: T): T {
  (emit as Marked)[EMITTED] = true;
  return emit;
}

/** The writes an outcome's end depends on, undefined when it names none. */
export function writesOf(outcome: TaskOutcome): AppendDependencies | undefined {
  return outcome.dependsOn?.filter((write) => (write as Marked)[EMITTED] !== true);
}

/**
 * The outcome to store instead when a write the executor's outcome depends on failed: the task failed,
 * as if the executor had thrown. Undefined for any other error (a store outage: the end is retried).
 */
export function outcomeAfter(error: unknown, taskId: string, logger: Logger): TaskOutcome | undefined {
  if (!isDependencyFailed(error)) return undefined;
  logger.error({ err: error.cause, taskId }, "a write the task's outcome depends on failed");
  return { state: "TASK_STATE_FAILED", message: "The task failed." };
}
