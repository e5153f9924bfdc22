import type { ProgressState, TaskOutcome } from "../../ports/task-executor.js";

const PROGRESS_STATES: ReadonlySet<string> = new Set<ProgressState>([
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
]);
const OUTCOME_STATES: ReadonlySet<string> = new Set<TaskOutcome["state"]>([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_REJECTED",
]);

/**
 * The states an executor reports are checked where they enter the runtime: an executor written in plain
 * JavaScript (or for an earlier release, whose states were v0.3's "completed", …) learns of a state the
 * model has no name for at once, instead of storing a task no dialect can render.
 */
export function checkedProgressState(state: string | undefined): ProgressState | undefined {
  if (state === undefined || PROGRESS_STATES.has(state)) return state as ProgressState | undefined;
  throw new TypeError(`an executor's progress state is one of ${[...PROGRESS_STATES].join(", ")}; got ${state}`);
}

export function checkedOutcome(outcome: TaskOutcome): TaskOutcome {
  if (OUTCOME_STATES.has(outcome?.state)) return outcome;
  throw new TypeError(`an executor's outcome state is one of ${[...OUTCOME_STATES].join(", ")}; got ${outcome?.state}`);
}
