/** Why a runner stopped working on a task before its executor returned. */
export class TaskEndedElsewhere extends Error {
  constructor() {
    super("the task ended elsewhere (canceled, or taken over after a lost lease)");
    this.name = "AbortError";
  }
}

export const ORPHANED_REASON = "The server running this task stopped before the task finished.";
export const SHUTDOWN_REASON = "The server shut down before the task finished.";
