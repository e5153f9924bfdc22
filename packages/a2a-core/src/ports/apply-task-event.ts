import type { Task, TaskUpdateResult } from "../protocol/schemas/a2a.js";

/**
 * The snapshot of a task after one of its update events. Pure, so every store applies events the same
 * way: a status update replaces the status (and its message joins the history when the task ends, asks
 * for input, or the message is the caller's follow-up, which comes as a `working` status); an artifact
 * update adds the artifact or, with `append`, extends the parts of the artifact with the same id.
 */
export function applyTaskEvent(task: Task, update: TaskUpdateResult): Task {
  if (update.kind === "status-update") {
    const { message, state } = update.status;
    const joins =
      message !== undefined &&
      (update.final || message.role === "user" || state === "input-required" || state === "auth-required");
    const history = joins ? [...task.history, message] : task.history;
    return { ...task, status: update.status, history };
  }
  const existing = task.artifacts.findIndex((a) => a.artifactId === update.artifact.artifactId);
  if (existing === -1) return { ...task, artifacts: [...task.artifacts, update.artifact] };
  const artifacts = task.artifacts.slice();
  const previous = artifacts[existing];
  artifacts[existing] =
    update.append && previous
      ? { ...previous, ...update.artifact, parts: [...previous.parts, ...update.artifact.parts] }
      : update.artifact;
  return { ...task, artifacts };
}
