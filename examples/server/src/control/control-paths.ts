import { resolve } from "node:path";
import { ConfigError } from "../config.ts";

/** Where the running server answers the CLI's admin commands when the store is embedded. */
export interface ControlPaths {
  /** Owner-only (0700) directory beside the data directory: `<DATA_DIR>.run`. */
  dir: string;
  socket: string;
}

/**
 * Longest socket path accepted. The kernel's limit is 108 bytes on Linux and 104 on macOS, counted with
 * the terminating NUL; 100 leaves room on both.
 */
export const MAX_SOCKET_PATH_BYTES = 100;

/**
 * The control socket's place: `<DATA_DIR>.run/control.sock`, in a directory of its own that only the
 * owner may enter, so nobody else can connect to the socket or put one of their own in its place. A path
 * too long for a Unix socket is a configuration error: falling back to a shared directory such as /tmp is
 * what this layout avoids.
 */
export function controlPaths(dataDir: string): ControlPaths {
  const dir = `${resolve(dataDir)}.run`;
  const socket = `${dir}/control.sock`;
  const bytes = Buffer.byteLength(socket);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new ConfigError(
      `the control socket path ${socket} is ${bytes} bytes, longer than Unix sockets allow ` +
        `(${MAX_SOCKET_PATH_BYTES}); set a shorter DATA_DIR (e.g. DATA_DIR=/var/lib/a2a/pglite)`,
    );
  }
  return { dir, socket };
}
