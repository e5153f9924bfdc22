import { setTimeout as sleep } from "node:timers/promises";
import { isDataDirectoryLockedError, type LockHolder } from "./data-directory-lock.js";

/** What `retryWhileLocked` waits for, and how long. */
export interface RetryWhileLockedOptions {
  /** Whether this holder is worth waiting for (a CLI command about to finish, a server still starting). */
  waitFor(holder: LockHolder): boolean;
  /** How long to keep trying, from the first attempt (ms). */
  timeoutMs: number;
  /** Told once, at the first refusal that is waited out (a log line: "waiting for …"). */
  onWait?(holder: LockHolder): void;
  /** The pause between two attempts (ms). Default 100. */
  retryMs?: number;
}

/**
 * Runs `attempt` until it no longer fails with a DataDirectoryLockedError whose holder `waitFor`
 * accepts, for up to `timeoutMs`. Any other error, a holder not waited for, or a refusal after the time
 * is up is thrown as it is. For whoever opens an embedded data directory another process may hold for a
 * moment: a server starting while a CLI command runs, a CLI command while a server opens its store.
 */
export async function retryWhileLocked<T>(attempt: () => Promise<T>, options: RetryWhileLockedOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  let waiting = false;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (!isDataDirectoryLockedError(error) || !options.waitFor(error.holder) || Date.now() > deadline) throw error;
      if (!waiting) options.onWait?.(error.holder);
      waiting = true;
    }
    await sleep(options.retryMs ?? 100);
  }
}
