import type { EventLog } from "../../ports/event-log.js";
import type { Logger } from "../../ports/logger.js";
import type { TaskRecord } from "../../ports/task-records.js";
import type { TaskStore } from "../../ports/task-store.js";

/** What a feed needs from the hub that holds it. */
export interface FeedContext {
  tasks: TaskStore;
  events: EventLog;
  logger: Logger;
  instanceId: string;
  /** The task ended or moved to another runner while this process ran it: stop its executor. */
  onLost(taskId: string): void;
  /** The task reached a terminal state (for the terminal-task cache). */
  onTerminal(record: TaskRecord): void;
  /** The feed has nothing left to do: forget it. */
  onIdle(feed: { readonly taskId: string }): void;
}

/** Events read from the log per query while a stream catches up: small enough that one read never
 * puts a client over its hard backlog bound; the socket drains between reads. */
export const READ_LIMIT = 100;
/** How often a catching-up read looks whether a client behind has drained. */
const BACKLOG_POLL_MS = 5;

/**
 * A client catching up reads the log no faster than it takes it: the next read waits while `behind()`
 * (a client's socket holds more than its bound). One that never drains is dropped by the keep-alive
 * tick, and the wait ends with it.
 */
export async function untilDrained(behind: () => boolean): Promise<void> {
  while (behind()) await new Promise((resolve) => setTimeout(resolve, BACKLOG_POLL_MS));
}
