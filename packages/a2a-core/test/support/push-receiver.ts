import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, beforeEach } from "vitest";

/** One request as the receiver got it. */
export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** `performance.now()` when the body had arrived. */
  at: number;
  /** The answer it was given. */
  answer: ReceiverAnswer;
}

/**
 * A status (with headers, after `delayMs`), a request left unanswered, or the connection destroyed
 * without an answer.
 */
export type ReceiverAnswer = { status: number; headers?: Record<string, string>; delayMs?: number } | "hang" | "drop";

/**
 * A real webhook receiver on 127.0.0.1 (node:http): records every request, answers each from a script
 * (`answers`, first in first used; 200 when it runs out), and can hang or drop a connection.
 */
export class PushReceiver {
  readonly received: ReceivedPush[] = [];
  readonly answers: ReceiverAnswer[] = [];
  /** Requests arrived and not yet answered, now and at most so far. */
  open = 0;
  maxOpen = 0;
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<PushReceiver> {
    let receiver: PushReceiver | undefined;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (chunk: Buffer) => chunks.push(chunk));
      req.on("end", () => receiver?.answer(req.url ?? "/", req.headers, Buffer.concat(chunks).toString("utf8"), res));
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    receiver = new PushReceiver(server, (server.address() as AddressInfo).port);
    return receiver;
  }

  url(path = "/hook"): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** Resolves once `count` requests have arrived (all of them), or fails after `ms`. */
  async waitFor(count: number, ms = 10_000): Promise<ReceivedPush[]> {
    const until = Date.now() + ms;
    while (this.received.length < count) {
      if (Date.now() > until) {
        throw new Error(`receiver got ${this.received.length} of ${count} requests within ${ms} ms`);
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
    return this.received;
  }

  /** The JSON bodies received, in arrival order. */
  bodies(): unknown[] {
    return this.received.map((push) => JSON.parse(push.body));
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(
    path: string,
    headers: IncomingHttpHeaders,
    body: string,
    res: import("node:http").ServerResponse,
  ): void {
    const answer = this.answers.shift() ?? { status: 200 };
    this.received.push({ path, headers, body, at: performance.now(), answer });
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    res.on("close", () => this.open--);
    for (const wake of this.waiters.splice(0)) wake();
    if (answer === "hang") return;
    if (answer === "drop") {
      res.socket?.destroy();
      return;
    }
    const respond = () => {
      res.writeHead(answer.status, { "content-type": "text/plain", ...answer.headers });
      res.end(answer.status < 300 ? "ok" : "no");
    };
    if (answer.delayMs) setTimeout(respond, answer.delayMs);
    else respond();
  }
}

/**
 * A receiver started before each test of the file and closed after it. The object returned stands for
 * the current test's receiver: read it as the test's own.
 */
export function receiverPerTest(): PushReceiver {
  let current: PushReceiver | undefined;
  beforeEach(async () => {
    current = await PushReceiver.start();
  });
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return new Proxy({} as PushReceiver, {
    get(_target, key) {
      if (!current) throw new Error("the receiver runs only inside a test");
      const value: unknown = Reflect.get(current, key, current);
      return typeof value === "function" ? value.bind(current) : value;
    },
  });
}
