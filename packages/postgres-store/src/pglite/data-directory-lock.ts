import { randomUUID } from "node:crypto";
import { link, readFile, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";

/**
 * One process per embedded (PGlite) data directory: two would corrupt it. Before a directory is opened, a
 * lock file naming the holder is created in it, atomically and exclusively; the next process finds it,
 * sees its holder alive and is refused with DataDirectoryLockedError. A lock whose holder died (a crash,
 * SIGKILL) is stale and taken over. The lock guards processes of one machine: liveness is checked by pid.
 */
export const LOCK_FILE_NAME = "a2a-store.lock";

/** What a lock file says about the process holding it. */
export interface LockHolder {
  pid: number;
  /** What the holder said it is (`server`, `cli seed` …), shown to whoever is refused. */
  owner: string;
  hostname: string;
  /** When it took the lock (ISO-8601). */
  since: string;
  /** The kernel's start time of the holder (Linux `/proc/<pid>/stat`), to tell a reused pid from it. */
  processStart?: string;
}

export interface DataDirectoryLock {
  readonly path: string;
  /** Removes the lock file if it is still this process's; idempotent. */
  release(): Promise<void>;
}

export class DataDirectoryLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly lockPath: string,
    readonly holder: LockHolder,
  ) {
    super(
      `the data directory ${dataDir} is in use by ${holder.owner} (pid ${holder.pid} on ${holder.hostname}, ` +
        `since ${holder.since}); only one process may open it at a time. If that process is not running, ` +
        `delete ${lockPath}.`,
    );
    this.name = "DataDirectoryLockedError";
  }
}

export function isDataDirectoryLockedError(error: unknown): error is DataDirectoryLockedError {
  return error instanceof Error && error.name === "DataDirectoryLockedError" && "holder" in error;
}

/** Lock files this process holds: a second open in the same process is refused like one from another. */
const heldHere = new Set<string>();

/** How long a lock file that keeps changing under us is retried before giving up. */
const SETTLE_MS = 2_000;

export async function lockDataDirectory(dataDir: string, options: { owner?: string } = {}): Promise<DataDirectoryLock> {
  const path = join(dataDir, LOCK_FILE_NAME);
  const mine: LockHolder = {
    pid: process.pid,
    owner: options.owner ?? "another process",
    hostname: hostname(),
    since: new Date().toISOString(),
    ...optional("processStart", await processStartTime(process.pid)),
  };
  const content = `${JSON.stringify(mine)}\n`;
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    if (!heldHere.has(path) && (await createExclusive(path, content))) {
      heldHere.add(path);
      return { path, release: () => release(path, content) };
    }
    const found = await readLock(path);
    if (found === undefined) {
      // Released between our attempt and our read: try again.
    } else if (found.holder && (await isAlive(found.holder, path))) {
      throw new DataDirectoryLockedError(dataDir, path, found.holder);
    } else {
      await removeStale(path, found.raw);
    }
    if (Date.now() > deadline) throw new Error(`could not lock ${dataDir}: ${path} keeps changing`);
  }
}

/**
 * Creates the lock file with its whole content, or reports that it exists. Written to a private file
 * first and hard-linked into place: `link` fails with EEXIST like an O_EXCL create, and the lock never
 * exists half-written, so an unreadable lock file is always garbage, never one being written.
 */
async function createExclusive(path: string, content: string): Promise<boolean> {
  const draft = `${path}.${process.pid}.${randomUUID()}.new`;
  await writeFile(draft, content, { mode: 0o600, flag: "wx" });
  try {
    await link(draft, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await rm(draft, { force: true });
  }
}

async function readLock(path: string): Promise<{ raw: string; holder: LockHolder | undefined } | undefined> {
  let raw: string;
  try {
    raw = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
  return { raw, holder: parseHolder(raw) };
}

function parseHolder(raw: string): LockHolder | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockHolder>;
    if (!Number.isInteger(value.pid) || (value.pid as number) <= 0) return undefined;
    return {
      pid: value.pid as number,
      owner: typeof value.owner === "string" ? value.owner : "another process",
      hostname: typeof value.hostname === "string" ? value.hostname : "?",
      since: typeof value.since === "string" ? value.since : "?",
      ...optional("processStart", typeof value.processStart === "string" ? value.processStart : undefined),
    };
  } catch {
    return undefined;
  }
}

/**
 * Whether the process a lock names still runs. Our own pid is alive only if this process took the lock:
 * otherwise the lock is from an earlier process that had the same pid (a container restarted, where pids
 * repeat). A pid that now belongs to a process started at another time is a reused pid, not the holder.
 */
async function isAlive(holder: LockHolder, path: string): Promise<boolean> {
  if (holder.pid === process.pid) return heldHere.has(path);
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    // EPERM: it exists but belongs to someone else; that still counts as alive.
    if ((error as NodeJS.ErrnoException).code === "ESRCH") return false;
  }
  if (holder.processStart === undefined) return true;
  const started = await processStartTime(holder.pid);
  return started === undefined || started === holder.processStart;
}

/**
 * Deletes a stale lock, holding a short-lived takeover guard (created like the lock itself) while it checks
 * that the lock is still the stale one it read. Without the guard, a process that read the stale lock
 * late could delete the fresh lock another process had just taken over, and two would open the directory.
 * Only a process that dies inside this window leaves a guard behind; its pid is dead, so it is cleared.
 */
async function removeStale(path: string, staleRaw: string): Promise<void> {
  const guard = `${path}.takeover`;
  if (!(await createExclusive(guard, `${JSON.stringify({ pid: process.pid, owner: "takeover" })}\n`))) {
    const found = await readLock(guard);
    if (found && !(found.holder && (await isAlive(found.holder, guard)))) await rm(guard, { force: true });
    await new Promise((resolve) => setTimeout(resolve, 10));
    return;
  }
  try {
    const current = await readFile(path, "utf8").catch(() => undefined);
    if (current === staleRaw) await rm(path, { force: true });
  } finally {
    await rm(guard, { force: true });
  }
}

async function release(path: string, content: string): Promise<void> {
  if (!heldHere.delete(path)) return;
  const current = await readFile(path, "utf8").catch(() => undefined);
  if (current === content) await rm(path, { force: true });
}

/** Field 22 of `/proc/<pid>/stat` (start time in clock ticks since boot); undefined off Linux. */
async function processStartTime(pid: number): Promise<string | undefined> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19];
  } catch {
    return undefined;
  }
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
