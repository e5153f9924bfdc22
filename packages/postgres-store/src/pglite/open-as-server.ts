import type { Database } from "../database.js";
import { DataDirectoryLockedError, isDataDirectoryLockedError, type LockHolder } from "./data-directory-lock.js";
import { retryWhileLocked } from "./retry-while-locked.js";

/** Who a server is to the data directory's lock, and what it says when another server holds it. */
export interface OpenAsServerOptions {
  /** The lock owner servers open the data directory as (the owner `open` locks it for). */
  serverOwner: string;
  /** What to do when another server holds it, appended to the refusal (where that one listens, say). */
  anotherServerHint: string;
  /** How long to wait for any other holder (a CLI command) to let go (ms). Default 30 000. */
  waitMs?: number;
  /** Told once when it starts to wait for such a holder (a log line). */
  onWait?(holder: LockHolder): void;
}

/**
 * Opens the store for a server with `open` (which locks an embedded data directory for `serverOwner`).
 * Another server holding the data directory is a DataDirectoryLockedError at once, carrying
 * `anotherServerHint`; any other holder (a CLI command started at the same moment) is waited for, up to
 * `waitMs`. The counterpart of `runStoreCommand`, which waits for a server still opening its socket.
 */
export async function openAsServer(open: () => Promise<Database>, options: OpenAsServerOptions): Promise<Database> {
  const { serverOwner } = options;
  try {
    return await retryWhileLocked(open, {
      waitFor: (holder) => holder.owner !== serverOwner,
      timeoutMs: options.waitMs ?? 30_000,
      ...(options.onWait ? { onWait: options.onWait } : {}),
    });
  } catch (error) {
    if (!isDataDirectoryLockedError(error) || error.holder.owner !== serverOwner) throw error;
    throw new DataDirectoryLockedError(error.dataDir, error.lockPath, error.holder, options.anotherServerHint);
  }
}
