import { isInterruptedState, isTerminalState, type Task, type TaskUpdateResult } from "../protocol/schemas/a2a.js";

/**
 * The snapshot of a task after one of its update events. Pure, so every store applies events the same
 * way: a status update replaces the status (and its message joins the history when the task ends, asks
 * for input, or the message is the caller's follow-up, which comes as a `working` status); an artifact
 * update adds the artifact or, with `append`, extends the parts of the artifact with the same id.
 */
export function applyTaskEvent(task: Task, update: TaskUpdateResult): Task {
  if ("statusUpdate" in update) {
    const { status } = update.statusUpdate;
    const { message, state } = status;
    const joins =
      message !== undefined && (isTerminalState(state) || message.role === "ROLE_USER" || isInterruptedState(state));
    const history = joins ? [...task.history, message] : task.history;
    return { ...task, status, history };
  }
  const { artifactUpdate } = update;
  const existing = task.artifacts.findIndex((a) => a.artifactId === artifactUpdate.artifact.artifactId);
  if (existing === -1) return { ...task, artifacts: [...task.artifacts, artifactUpdate.artifact] };
  const artifacts = task.artifacts.slice();
  const previous = artifacts[existing];
  artifacts[existing] =
    artifactUpdate.append && previous
      ? { ...previous, ...artifactUpdate.artifact, parts: [...previous.parts, ...artifactUpdate.artifact.parts] }
      : artifactUpdate.artifact;
  return { ...task, artifacts };
}
