import { chmod, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { Database } from "@a2a-partner/postgres-store";
import { generateMetrics } from "../admin/generate-metrics.ts";
import { createWorkspaceToken, listTokens, revokeToken, type TokenRequest } from "../admin/token-operations.ts";
import { AdminNotFoundError, AdminUsageError } from "../admin/usage-error.ts";
import { isOperatorOperation, OPERATOR_OPERATIONS, type OperatorOperation } from "../admin/workspace-operations.ts";
import type { Logger } from "../logger.ts";
import { migrateReferenceSchema } from "../migrations.ts";
import { seed } from "../seed.ts";
import type { ControlPaths } from "./control-paths.ts";
import { ensurePrivateDirectory } from "./private-directory.ts";
import { trustedSocketExists } from "./trusted-socket.ts";

export type ControlCommand =
  | "ping"
  | "migrate"
  | "seed"
  | "token"
  | "tokens"
  | "revoke"
  | "generate"
  | OperatorOperation;

export interface ControlAnswer {
  status: number;
  body: { result?: unknown; error?: string };
}

/**
 * The embedded store (PGlite) can be open in one process only. While the server runs, it answers the
 * CLI's admin commands on a Unix socket in an owner-only directory beside the data directory, so the CLI
 * never opens the data directory a second time. The caller holds the data directory's lock, so a socket
 * file already there was left by a server that died.
 */
export async function startControlSocket(db: Database, paths: ControlPaths, logger: Logger): Promise<Server> {
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
      if (req.method !== "POST") return reply(404, { error: "unknown control command" });
      switch (req.url) {
        case "/generate": {
          const { args } = input as { args?: unknown };
          if (!Array.isArray(args) || !args.every((a) => typeof a === "string"))
            throw new AdminUsageError("args must be strings");
          return reply(200, { result: await generateMetrics(db, args) });
        }
        case "/revoke":
          return reply(200, { result: await revokeToken(db, String((input as { ref?: unknown }).ref ?? "")) });
        case "/tokens":
          return reply(200, { result: await listTokens(db, input as { workspace?: string }) });
        case "/migrate":
          return reply(200, { result: await migrateReferenceSchema(db) });
        case "/seed":
          return reply(200, { result: await seed(db) });
        case "/token":
          return reply(200, { result: await createWorkspaceToken(db, input as TokenRequest) });
        default: {
          const name = req.url?.slice(1) ?? "";
          if (isOperatorOperation(name)) return reply(200, { result: await OPERATOR_OPERATIONS[name](db, input) });
          return reply(404, { error: "unknown control command" });
        }
      }
    } catch (error) {
      // 404: the CLI exits 1 (it names something that does not exist); 400: exit 2 (the command line).
      if (error instanceof AdminNotFoundError) return reply(404, { error: error.message });
      if (error instanceof AdminUsageError) return reply(400, { error: error.message });
      logger.error({ err: error }, "control command failed");
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
 * Runs an admin command in the running server, or answers `undefined` when no server listens. The socket
 * is checked first (this user's, in this user's private directory): a command can carry a new token back.
 */
export async function sendControlCommand(
  paths: ControlPaths,
  command: ControlCommand,
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
      // A socket left behind by a server that is gone: nobody answers.
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(undefined);
      else reject(error);
    });
    req.end(JSON.stringify(body));
  });
}
