import { chmod, lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";

const DIRECTORY_MODE = 0o700;
const FILE_MODE = 0o600;

/**
 * Makes an embedded data directory owner-only, as PostgreSQL keeps its own: the directory and every
 * directory under it 0700, every file 0600, whatever they were (a directory made beforehand as 0755, or
 * the files PGlite unpacks at its first start, which it writes 0666 whatever the umask). Symbolic links
 * are left alone: their targets are not the store's. Throws, naming the path, when a mode cannot be set
 * (a directory owned by another user): the data holds the push signing secrets.
 */
export async function makeDataDirectoryPrivate(root: string): Promise<void> {
  // The root may itself be a symbolic link to the directory: follow it.
  await setMode(root, (await stat(root)).mode, DIRECTORY_MODE, root);
  await walk(root, root);
}

/** Only the root, at once, before anything is written into it: nothing below it is reachable by others. */
export async function closeDataDirectory(root: string): Promise<void> {
  await setMode(root, (await stat(root)).mode, DIRECTORY_MODE, root);
}

async function walk(dir: string, root: string): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(ignoreVanished);
  if (!entries) return;
  await Promise.all(
    entries.map(async (entry) => {
      const path = join(dir, entry.name);
      if (!entry.isDirectory() && !entry.isFile()) return;
      // lstat, not the entry: the mode is needed, and a name replaced meanwhile is judged as it is now.
      const info = await lstat(path).catch(ignoreVanished);
      if (!info) return;
      if (info.isDirectory()) {
        await setMode(path, info.mode, DIRECTORY_MODE, root);
        await walk(path, root);
      } else if (info.isFile()) {
        await setMode(path, info.mode, FILE_MODE, root);
      }
    }),
  );
}

async function setMode(path: string, current: number, wanted: number, root: string): Promise<void> {
  if ((current & 0o7777) === wanted) return;
  try {
    await chmod(path, wanted);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ENOENT") return;
    throw new Error(
      `The embedded database's data directory ${root} must be private to the user running this process ` +
        `(directories 0700, files 0600), and ${path} could not be made so (${String(code ?? error)}): ` +
        "give the directory to this user, or choose another one",
      { cause: error },
    );
  }
}

/** A file the running database removed between listing and looking (a WAL segment recycled): skipped. */
function ignoreVanished(error: unknown): undefined {
  if ((error as { code?: unknown }).code === "ENOENT") return undefined;
  throw error;
}
