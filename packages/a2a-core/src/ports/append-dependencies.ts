/**
 * Writes a task's append depends on (`EventLog.appendNumbered`, `TaskOutcome.dependsOn`): it is stored
 * only if every one of them succeeds.
 */
export type AppendDependencies = readonly PromiseLike<unknown>[];

/** An append refused because a write it depends on failed: nothing of it was stored. */
export class DependencyFailedError extends Error {
  constructor(cause: unknown) {
    super("a write this append depends on failed", { cause });
    this.name = "DependencyFailedError";
  }
}

/** Whether `error` is a `DependencyFailedError` (by name: a store may load another copy of this package). */
export function isDependencyFailed(error: unknown): error is DependencyFailedError {
  return error instanceof Error && error.name === "DependencyFailedError";
}

/**
 * Resolves once every dependency has succeeded; rejects with a `DependencyFailedError` (the first
 * failure as its cause) once one has failed. For a store that waits for the dependencies before it
 * writes, rather than committing the append with them.
 */
export async function dependenciesSucceeded(dependsOn: AppendDependencies | undefined): Promise<void> {
  if (!dependsOn?.length) return;
  try {
    await Promise.all(dependsOn);
  } catch (error) {
    throw new DependencyFailedError(error);
  }
}
