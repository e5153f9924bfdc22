import { resolve } from "node:path";
import { ConfigError } from "../settings.js";
import type { ControlSocketPaths } from "./control-socket.js";

/**
 * Longest socket path accepted. The kernel's limit is 108 bytes on Linux and 104 on macOS, counted with
 * the terminating NUL; 100 leaves room on both.
 */
export const MAX_SOCKET_PATH_BYTES = 100;

/**
 * The control socket's place for a data directory: `<dataDir>.run/control.sock`, in a directory of its
 * own beside it that only the owner may enter (0700), so nobody else can connect to the socket or put one
 * of their own in its place. A path too long for a Unix socket is a configuration error naming `setting`
 * (the data directory's): falling back to a shared directory such as /tmp is what this layout avoids.
 */
export function controlSocketPaths(dataDir: string, setting = "DATA_DIR"): ControlSocketPaths {
  const dir = `${resolve(dataDir)}.run`;
  const socket = `${dir}/control.sock`;
  const bytes = Buffer.byteLength(socket);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    throw new ConfigError(
      `the control socket path ${socket} is ${bytes} bytes, longer than Unix sockets allow ` +
        `(${MAX_SOCKET_PATH_BYTES}); set a shorter ${setting} (e.g. ${setting}=/var/lib/a2a/pglite)`,
    );
  }
  return { dir, socket };
}
