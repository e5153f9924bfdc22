import { chmod, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { RuntimeLogger } from "../runtime-logger.js";
import { ensurePrivateDirectory } from "./private-directory.js";
import { trustedSocketExists } from "./trusted-socket.js";

/** Where a control socket lives: `socket`, inside `dir`, a directory only its owner may enter. */
export interface ControlSocketPaths {
  dir: string;
  socket: string;
}

/** What a command answered: 200 with its result, or a status with an error message. */
export interface ControlAnswer {
  status: number;
  body: { result?: unknown; error?: string };
}

/** The commands a control socket runs, by name (`POST /<name>` with a JSON body), each with its input. */
export type ControlCommands = Readonly<Record<string, (input: unknown) => Promise<unknown>>>;

export interface ControlSocketOptions {
  commands: ControlCommands;
  /**
   * The status a command's error is answered with, its message sent back (a usage mistake: 400, say);
   * undefined: 500, the error logged and its message kept out of the answer.
   */
  statusOf?(error: unknown): number | undefined;
  logger: Pick<RuntimeLogger, "error">;
}

/**
 * Answers commands from other processes of the same user on a Unix socket in an owner-only directory:
 * for a store only one process may open (an embedded database), the process that holds it runs the
 * commands a CLI would. `GET /ping` answers `"pong"`. The caller makes sure no live process uses the
 * socket (it holds the store's lock): a socket file already there was left by one that died.
 */
export async function startControlSocket(paths: ControlSocketPaths, options: ControlSocketOptions): Promise<Server> {
  // The directory is private before the socket exists: there is no moment when others could connect.
  await ensurePrivateDirectory(paths.dir);
  await rm(paths.socket, { force: true });
  const server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const input = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
      if (req.url === "/ping") return reply(200, { result: "pong" });
      const name = req.url?.slice(1) ?? "";
      if (req.method !== "POST" || !Object.hasOwn(options.commands, name)) {
        return reply(404, { error: "unknown control command" });
      }
      return reply(200, { result: await options.commands[name]?.(input) });
    } catch (error) {
      const status = options.statusOf?.(error);
      if (status !== undefined) return reply(status, { error: error instanceof Error ? error.message : String(error) });
      options.logger.error({ err: error }, "control command failed");
      return reply(500, { error: "the command failed; see the server log" });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ path: paths.socket }, () => resolve());
  });
  // Belt and braces: the directory already keeps everyone else out.
  await chmod(paths.socket, 0o600);
  return server;
}

/**
 * Runs a command in the process that listens on the socket, or answers `undefined` when none listens.
 * The socket is checked first (this user's, in this user's private directory): a command's result can
 * carry a secret back.
 */
export async function sendControlCommand(
  paths: ControlSocketPaths,
  command: string,
  body: unknown = {},
): Promise<ControlAnswer | undefined> {
  if (!(await trustedSocketExists(paths.socket, paths.dir))) return undefined;
  return new Promise<ControlAnswer | undefined>((resolve, reject) => {
    const req = httpRequest({ socketPath: paths.socket, path: `/${command}`, method: "POST" }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 500, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        } catch {
          reject(new Error(`${paths.socket} answered something that is not a control reply`));
        }
      });
      res.on("error", reject);
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      // A socket left behind by a process that is gone: nobody answers.
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(undefined);
      else reject(error);
    });
    req.end(JSON.stringify(body));
  });
}
