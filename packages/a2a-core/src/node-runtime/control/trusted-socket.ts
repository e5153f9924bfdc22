import { lstat } from "node:fs/promises";
import { currentUid } from "./private-directory.js";

/**
 * Whether the socket is there, and only if it is one this user can trust: a socket owned by this user in
 * a directory owned by this user that nobody else can write to. Anything else throws, so a client never
 * sends a command (or reads a secret back) through a socket someone else put there.
 */
export async function trustedSocketExists(socketPath: string, dir: string, uid = currentUid()): Promise<boolean> {
  let info: Awaited<ReturnType<typeof lstat>>;
  try {
    info = await lstat(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR")
      return false;
    throw error;
  }
  if (!info.isSocket()) throw new Error(`refusing to use ${socketPath}: it is not a socket`);
  if (uid === undefined) return true;
  if (info.uid !== uid) {
    throw new Error(`refusing to use ${socketPath}: it belongs to uid ${info.uid}, not to you (uid ${uid})`);
  }
  const parent = await lstat(dir);
  if (!parent.isDirectory() || parent.uid !== uid || (parent.mode & 0o022) !== 0) {
    throw new Error(`refusing to use ${socketPath}: others can write to ${dir} (it should be yours, mode 0700)`);
  }
  return true;
}
