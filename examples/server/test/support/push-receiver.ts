import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { PushVerificationError, verifyPushNotification } from "@a2a-partner/a2a-client";

/**
 * A partner's push receiver as a real node:http server on 127.0.0.1: it verifies every request with the
 * typed client's `verifyPushNotification`, records what it got, and answers as the test tells it (take,
 * fail with 500, answer slowly, drop the connection, or hold the request unanswered). It can be stopped
 * (an outage: the port refuses connections, held requests are cut) and started again on the same port,
 * so the configs' URLs stay valid.
 */

/** How the receiver answers one verified notification. */
export type Answer =
  | { kind: "ok" }
  | { kind: "status"; status: number }
  | { kind: "slow"; ms: number }
  /** The connection is destroyed without an answer, after the receiver handled the notification. */
  | { kind: "drop" }
  /** Handled, and left unanswered until `releaseHeld` or `stop`. */
  | { kind: "hold" };

export interface Received {
  webhookId: string;
  taskId: string;
  seq: number;
  version: "0.3" | "1.0";
  /** The URL path the config named: tells the configs of one task apart. */
  path: string;
  notificationToken: string | undefined;
  payload: unknown;
  /** Whether the receiver handled it (took it, answered slowly, dropped or held it after handling); a 500 is not. */
  handled: boolean;
  /** When it arrived (ms, `performance.now()`). */
  at: number;
}

export interface PushReceiver {
  /** `http://127.0.0.1:<port>`: configs name `${base}/<path>`. */
  readonly base: string;
  /** Every verified notification, duplicates and refused ones (`handled: false`) included, in arrival order. */
  readonly received: Received[];
  /** Requests that did not verify (a bad signature, missing headers …): should stay empty. */
  readonly unverified: string[];
  /** The next this-many verified requests are also kept whole in `raw` (the push bench replays them). */
  keepRaw: number;
  /** Verified requests as they came (body and headers), while `keepRaw` lasted. */
  readonly raw: Array<{ body: string; headers: Record<string, string> }>;
  /** Decides each verified notification's answer (default: take it). */
  answer: (notification: Received, index: number) => Answer;
  /** Called before answering; e.g. a durability check against the store. Its errors are recorded in `unverified`. */
  inspect?: (notification: Received) => Promise<void>;
  /** Requests held unanswered right now. */
  held(): number;
  /** Answers every held request 200. */
  releaseHeld(): void;
  /** An outage: stops listening and cuts every open connection (held requests too). */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startPushReceiver(secret: string | readonly string[]): Promise<PushReceiver> {
  const sockets = new Set<Socket>();
  const holding = new Set<ServerResponse>();
  let port = 0;
  let server: Server | undefined;

  const receiver: PushReceiver = {
    base: "",
    received: [],
    unverified: [],
    keepRaw: 0,
    raw: [],
    answer: () => ({ kind: "ok" }),
    held: () => holding.size,
    releaseHeld() {
      for (const res of holding) res.writeHead(200).end();
      holding.clear();
    },
    stop: () => stop(),
    restart: () => listen(),
    close: () => stop(),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let notification: Received;
    try {
      const body = Buffer.concat(chunks);
      const verified = verifyPushNotification({ body, headers: req.headers, secret });
      if (verified.seq === undefined) throw new Error(`no seq in webhook-id ${verified.webhookId}`);
      if (receiver.keepRaw > 0) {
        receiver.keepRaw--;
        receiver.raw.push({ body: body.toString("utf8"), headers: rawHeaders(req) });
      }
      notification = {
        webhookId: verified.webhookId,
        taskId: verified.taskId,
        seq: verified.seq,
        version: verified.version,
        path: new URL(req.url ?? "/", "http://receiver").pathname,
        notificationToken: verified.notificationToken,
        payload: verified.payload,
        handled: false,
        at: performance.now(),
      };
    } catch (error) {
      receiver.unverified.push(
        error instanceof PushVerificationError ? `${error.reason}: ${error.message}` : String(error),
      );
      res.writeHead(400).end();
      return;
    }
    const answer = receiver.answer(notification, receiver.received.length);
    notification.handled = answer.kind !== "status";
    receiver.received.push(notification);
    try {
      await receiver.inspect?.(notification);
    } catch (error) {
      receiver.unverified.push(`inspect: ${(error as Error).message}`);
    }
    switch (answer.kind) {
      case "ok":
        res.writeHead(200).end();
        return;
      case "status":
        res.writeHead(answer.status).end();
        return;
      case "slow":
        setTimeout(() => res.writeHead(200).end(), answer.ms);
        return;
      case "drop":
        req.socket.destroy();
        return;
      case "hold":
        holding.add(res);
        res.on("close", () => holding.delete(res));
        return;
    }
  }

  async function listen(): Promise<void> {
    const next = createServer((req, res) => {
      handle(req, res).catch((error) => {
        receiver.unverified.push(`handler: ${String(error)}`);
        req.socket.destroy();
      });
    });
    next.on("connection", (socket) => {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      next.once("error", reject);
      next.listen(port, "127.0.0.1", () => resolve());
    });
    port = (next.address() as AddressInfo).port;
    (receiver as { base: string }).base = `http://127.0.0.1:${port}`;
    server = next;
  }

  async function stop(): Promise<void> {
    const current = server;
    server = undefined;
    if (!current) return;
    const closed = new Promise<void>((resolve) => current.close(() => resolve()));
    holding.clear();
    for (const socket of sockets) socket.destroy();
    await closed;
  }

  await listen();
  return receiver;
}

/** The request's headers as sent (a sender can replay them), without those of the connection. */
function rawHeaders(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string" && !["host", "connection", "content-length"].includes(name)) headers[name] = value;
  }
  return headers;
}

/** Notifications deduplicated by webhook-id (the first of each), per task and config path, in arrival order. */
export function byTaskAndConfig(received: readonly Received[]): Map<string, Received[]> {
  const seen = new Set<string>();
  const groups = new Map<string, Received[]>();
  for (const notification of received) {
    if (!notification.handled || seen.has(notification.webhookId)) continue;
    seen.add(notification.webhookId);
    const key = `${notification.taskId} ${notification.path}`;
    groups.set(key, [...(groups.get(key) ?? []), notification]);
  }
  return groups;
}

/** How many handled notifications repeated a webhook-id already handled: the at-least-once duplicates. */
export function duplicatesOf(received: readonly Received[]): number {
  const handled = received.filter((n) => n.handled);
  return handled.length - new Set(handled.map((n) => n.webhookId)).size;
}
