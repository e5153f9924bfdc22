import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, rmdir, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import lockfile from "proper-lockfile";

/**
 * One process per embedded (PGlite) data directory: two would corrupt it. The lock is a directory created
 * atomically (`mkdir`) whose modification time its holder renews every second (proper-lockfile): whoever
 * finds it watches that heartbeat. A heartbeat that moves is a live holder, wherever it runs: another
 * container on the same volume, another PID namespace, another host on a shared volume. One that stopped
 * for LOCK_STALE_MS is a holder that died (a crash, SIGKILL) and the lock is taken over. Nothing here
 * trusts a pid, which another PID namespace or a restarted container reuses. Beside the lock, the file
 * LOCK_FILE_NAME names the holder for whoever is refused.
 */
export const LOCK_FILE_NAME = "a2a-store.lock";

/** The lock itself: a directory whose mtime is the holder's heartbeat. */
const LOCK_DIR_NAME = "a2a-store.lock.d";
/** How often the holder renews its heartbeat (proper-lockfile's minimum). */
const HEARTBEAT_MS = 1_000;
/** A heartbeat this old is a holder that died: its lock is taken over. Ten beats missed. */
export const LOCK_STALE_MS = 10_000;
/** How long a finder watches for the heartbeat to move before it calls the holder alive or dead. */
const WATCH_MS = 2.5 * HEARTBEAT_MS;
/** Marks a holder file this version wrote (one without it is from an earlier version, see `legacyHolder`). */
const HEARTBEAT_LOCK = "heartbeat";

/** What the lock says about the process holding it. */
export interface LockHolder {
  /** Its pid in its own PID namespace: for the operator, never used to decide anything. */
  pid: number;
  /** What the holder said it is (`server`, `cli seed` …), shown to whoever is refused. */
  owner: string;
  hostname: string;
  /** When it took the lock (ISO-8601). */
  since: string;
  /** Written by earlier versions (pid liveness); kept so their holder files still read. */
  processStart?: string;
}

export interface DataDirectoryLock {
  readonly path: string;
  /** Lets go of the lock (removes it and its holder file); idempotent. */
  release(): Promise<void>;
}

export interface LockDataDirectoryOptions {
  owner?: string;
  /**
   * Called when this process lost its lock: its heartbeat could not be renewed, or another process took
   * the lock over after this one stalled for LOCK_STALE_MS. Two processes may then be writing the
   * directory. Default: throw (an uncaught exception ends the process, the safe outcome).
   */
  onCompromised?: (error: Error) => void;
}

export class DataDirectoryLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly lockPath: string,
    readonly holder: LockHolder,
    hint = `A lock whose holder died is taken over ${LOCK_STALE_MS / 1000} s after its last heartbeat.`,
  ) {
    super(
      `the data directory ${dataDir} is in use by ${holder.owner} (pid ${holder.pid} on ${holder.hostname}, ` +
        `since ${holder.since}); only one process may open it at a time. ${hint}`,
    );
    this.name = "DataDirectoryLockedError";
  }
}

export function isDataDirectoryLockedError(error: unknown): error is DataDirectoryLockedError {
  return error instanceof Error && error.name === "DataDirectoryLockedError" && "holder" in error;
}

const UNKNOWN_HOLDER: LockHolder = { pid: 0, owner: "another process", hostname: "?", since: "?" };

export async function lockDataDirectory(
  dataDir: string,
  options: LockDataDirectoryOptions = {},
): Promise<DataDirectoryLock> {
  const holderPath = join(dataDir, LOCK_FILE_NAME);
  const lockDir = join(dataDir, LOCK_DIR_NAME);
  const legacy = await legacyHolder(holderPath);
  if (legacy) throw legacyRefusal(dataDir, holderPath, legacy);
  const release = await acquire(dataDir, lockDir, holderPath, options);
  const mine: LockHolder & { lock: string } = {
    pid: process.pid,
    owner: options.owner ?? "another process",
    hostname: hostname(),
    since: new Date().toISOString(),
    lock: HEARTBEAT_LOCK,
  };
  const content = `${JSON.stringify(mine)}\n`;
  try {
    // An earlier version may have written its lock file between our check and our lock: it holds the
    // directory by its own rules, so we back off.
    const lateLegacy = await legacyHolder(holderPath);
    if (lateLegacy) throw legacyRefusal(dataDir, holderPath, lateLegacy);
    await replaceFile(holderPath, content);
  } catch (error) {
    await release().catch(() => undefined);
    throw error;
  }
  let released = false;
  return {
    path: holderPath,
    async release() {
      if (released) return;
      released = true;
      const current = await readFile(holderPath, "utf8").catch(() => undefined);
      if (current === content) await rm(holderPath, { force: true });
      // ERELEASED / ECOMPROMISED: the lock is no longer ours to remove.
      await release().catch(() => undefined);
    },
  };
}

/**
 * Takes the lock directory, or finds out who has it: a heartbeat that moves within WATCH_MS is a live
 * holder (refused), one older than LOCK_STALE_MS is a dead one (taken over), a lock that vanishes was
 * released (tried again). proper-lockfile's own stale takeover is off: it removes a lock it judged stale
 * moments before without checking again, and could remove the fresh lock of a process that took over first.
 */
async function acquire(
  dataDir: string,
  lockDir: string,
  holderPath: string,
  options: LockDataDirectoryOptions,
): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_STALE_MS + 2 * WATCH_MS;
  for (;;) {
    try {
      return await lockfile.lock(dataDir, {
        lockfilePath: lockDir,
        realpath: false,
        stale: 2 ** 31 - 1, // staleness is judged here, under a guard (takeOverStale)
        update: HEARTBEAT_MS,
        onCompromised:
          options.onCompromised ??
          ((error) => {
            throw new Error(`lost the lock of the data directory ${dataDir}: ${error.message}`, { cause: error });
          }),
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
    }
    const verdict = await watchHeartbeat(lockDir);
    if (verdict === "alive") throw new DataDirectoryLockedError(dataDir, holderPath, await readHolder(holderPath));
    if (verdict === "dead") await takeOverStale(lockDir);
    if (Date.now() > deadline) throw new DataDirectoryLockedError(dataDir, holderPath, await readHolder(holderPath));
  }
}

/** Watches a lock's heartbeat: moved (alive), older than LOCK_STALE_MS (dead), gone, or still unsure. */
async function watchHeartbeat(lockDir: string): Promise<"alive" | "dead" | "gone" | "unsure"> {
  const first = await mtimeMs(lockDir);
  if (first === undefined) return "gone";
  const until = Date.now() + WATCH_MS;
  for (;;) {
    if (Date.now() - first >= LOCK_STALE_MS) return "dead";
    await sleep(100);
    const now = await mtimeMs(lockDir);
    if (now === undefined) return "gone";
    if (now !== first) return "alive";
    if (Date.now() > until) return Date.now() - now >= LOCK_STALE_MS ? "dead" : "unsure";
  }
}

/**
 * Removes a lock whose heartbeat stopped, holding a takeover guard (itself a directory) while it checks
 * again that the lock is still stale. Without the guard, a process that judged the lock stale a moment ago
 * could remove the fresh lock another process took after removing the stale one. A guard left by a process
 * that died inside this window of a few milliseconds is cleared once it is LOCK_STALE_MS old.
 */
async function takeOverStale(lockDir: string): Promise<void> {
  const guard = `${lockDir}.takeover`;
  try {
    await mkdir(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    const age = Date.now() - ((await mtimeMs(guard)) ?? Date.now());
    if (age >= LOCK_STALE_MS) await rmdir(guard).catch(() => undefined);
    await sleep(20);
    return;
  }
  try {
    const beat = await mtimeMs(lockDir);
    if (beat !== undefined && Date.now() - beat >= LOCK_STALE_MS) await rm(lockDir, { recursive: true, force: true });
  } finally {
    await rmdir(guard).catch(() => undefined);
  }
}

async function mtimeMs(path: string): Promise<number | undefined> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/** Written whole or not at all: a reader never sees half a holder. */
async function replaceFile(path: string, content: string): Promise<void> {
  const draft = `${path}.${randomUUID()}.new`;
  await writeFile(draft, content, { mode: 0o600 });
  try {
    await rename(draft, path);
  } catch (error) {
    await rm(draft, { force: true });
    throw error;
  }
}

async function readHolder(path: string): Promise<LockHolder> {
  const raw = await readFile(path, "utf8").catch(() => undefined);
  return (raw === undefined ? undefined : parseHolder(raw)?.holder) ?? UNKNOWN_HOLDER;
}

/**
 * A lock file an earlier version wrote (no heartbeat): its holder cannot be judged from here (that
 * version decided by pid, which is what failed across PID namespaces), so it is refused until it is
 * released or an operator deletes it.
 */
async function legacyHolder(path: string): Promise<LockHolder | undefined> {
  const raw = await readFile(path, "utf8").catch(() => undefined);
  if (raw === undefined) return undefined;
  const parsed = parseHolder(raw);
  return parsed && !parsed.heartbeat ? parsed.holder : undefined;
}

function legacyRefusal(dataDir: string, path: string, holder: LockHolder): DataDirectoryLockedError {
  return new DataDirectoryLockedError(
    dataDir,
    path,
    holder,
    `Its lock was written by an earlier version of this package; if that process is not running, delete ${path}.`,
  );
}

function parseHolder(raw: string): { holder: LockHolder; heartbeat: boolean } | undefined {
  try {
    const value = JSON.parse(raw) as Partial<LockHolder> & { lock?: unknown };
    if (!Number.isInteger(value.pid) || (value.pid as number) <= 0) return undefined;
    return {
      holder: {
        pid: value.pid as number,
        owner: typeof value.owner === "string" ? value.owner : "another process",
        hostname: typeof value.hostname === "string" ? value.hostname : "?",
        since: typeof value.since === "string" ? value.since : "?",
      },
      heartbeat: value.lock === HEARTBEAT_LOCK,
    };
  } catch {
    return undefined;
  }
}
