import { chmod, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import { type Database, migrate } from "@a2a-partner/postgres-store";
import { AdminUsageError, createWorkspaceToken, revokeToken, type TokenRequest } from "../admin.ts";
import { generateMetricsData, parseGenerateArgs } from "../generate/generate-metrics-data.ts";
import type { Logger } from "../logger.ts";
import { seed } from "../seed.ts";

/**
 * The embedded store (PGlite) can be open in one process only. While the server runs, it answers the
 * CLI's admin commands (`seed`, `token create`) on a Unix socket beside the data directory, so the CLI
 * never opens the data directory a second time. The socket is made owner-only (mode 0600).
 */
export async function startControlSocket(db: Database, socketPath: string, logger: Logger): Promise<Server> {
  await assertNoServerOn(socketPath);
  const server = createServer(async (req, res) => {
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    };
    try {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const input = chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : {};
      if (req.url === "/ping") return reply(200, { result: "pong" });
      if (req.method === "POST" && req.url === "/generate") {
        const { args } = input as { args?: unknown };
        if (!Array.isArray(args) || !args.every((a) => typeof a === "string"))
          throw new AdminUsageError("args must be strings");
        return reply(200, { result: await generateMetricsData(db, parseGenerateArgs(args)) });
      }
      if (req.method === "POST" && req.url === "/revoke") {
        return reply(200, { result: await revokeToken(db, String((input as { token?: unknown }).token ?? "")) });
      }
      if (req.method === "POST" && req.url === "/migrate") return reply(200, { result: await migrate(db) });
      if (req.method === "POST" && req.url === "/seed") return reply(200, { result: await seed(db) });
      if (req.method === "POST" && req.url === "/token") {
        return reply(200, { result: await createWorkspaceToken(db, input as TokenRequest) });
      }
      return reply(404, { error: "unknown control command" });
    } catch (error) {
      if (error instanceof AdminUsageError) return reply(400, { error: error.message });
      logger.error({ err: error }, "control command failed");
      return reply(500, { error: "the command failed; see the server log" });
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ path: socketPath }, () => resolve());
  });
  // Owner only: whoever can connect can mint tokens.
  await chmod(socketPath, 0o600);
  return server;
}

/** Runs an admin command in the running server, or answers `undefined` when no server holds the store. */
export async function sendControlCommand(
  socketPath: string,
  command: "ping" | "migrate" | "seed" | "token" | "revoke" | "generate",
  body: unknown = {},
) {
  return new Promise<{ status: number; body: { result?: unknown; error?: string } } | undefined>((resolve, reject) => {
    const req = httpRequest({ socketPath, path: `/${command}`, method: "POST" }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        try {
          resolve({ status: res.statusCode ?? 500, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) });
        } catch {
          reject(new Error(`${socketPath} answered something that is not a control reply`));
        }
      });
      res.on("error", reject);
    });
    req.on("error", (error: NodeJS.ErrnoException) => {
      // No socket, or a socket left behind by a server that is gone: nobody holds the store.
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(undefined);
      else reject(error);
    });
    req.end(JSON.stringify(body));
  });
}

/** Fails if a live server answers on the socket; removes a socket file left behind by one that died. */
export async function assertNoServerOn(socketPath: string): Promise<void> {
  if ((await sendControlCommand(socketPath, "ping").catch(() => undefined)) !== undefined) {
    throw new Error(`another server already uses this data directory (${socketPath})`);
  }
  await rm(socketPath, { force: true });
}
