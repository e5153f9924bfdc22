import { chmod, lstat, mkdir } from "node:fs/promises";

/** This process's uid; undefined where there are none (Windows). */
export function currentUid(): number | undefined {
  return process.getuid?.();
}

/**
 * Makes `dir` a directory only its owner can enter (mode 0700), owned by this user: created so, or an
 * existing one checked and tightened. Refuses a symlink or another user's directory, because whoever owns
 * it could swap a socket inside for their own.
 */
export async function ensurePrivateDirectory(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const info = await lstat(dir);
  if (!info.isDirectory()) throw new Error(`${dir} exists and is not a directory; remove it`);
  const uid = currentUid();
  if (uid !== undefined && info.uid !== uid) {
    throw new Error(`${dir} belongs to uid ${info.uid}, not to this user (uid ${uid}); remove it`);
  }
  // The umask may have taken bits away, never added any; set exactly 0700 on an older or looser directory.
  if ((info.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
}
