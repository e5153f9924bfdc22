import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { Readable } from "node:stream";
import { Worker } from "node:worker_threads";
import { firstResponseLine } from "@a2a-partner/test-support/first-response-line";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type A2AHandler, createA2AHandler, toFetchHandler } from "../src/index.js";
import { toNodeHandler } from "../src/node.js";
import { ERROR_CODES } from "../src/protocol/errors.js";
import { testHandlerOptions } from "./support/handler-harness.js";

/**
 * A body far over the limit, sent by Node's fetch (undici) as a client does: it writes the whole body
 * while the server answers. The server must let it finish, so that the client reads the 413 and its JSON
 * body instead of a connection error (EPIPE / ECONNRESET) from a socket closed under its upload.
 */

const FIVE_MIB = 5 * 1024 * 1024;
const ROUNDS = 5;

type ErrorBody = { id?: null; error: { code: number; message: string } };
type Answer =
  | { status: number; connection: string | null; contentType: string | null; body: string }
  | { error: string };

/**
 * The uploads, one after another, from a worker thread: a client with an event loop of its own (as a
 * partner's process has), so its writes race the server's answer as they do between two machines.
 */
function uploadFromAnotherThread(url: string, kind: "declared" | "chunked"): Promise<Answer[]> {
  const worker = new Worker(CLIENT, { eval: true, workerData: { url, kind, size: FIVE_MIB, rounds: ROUNDS } });
  return new Promise<Answer[]>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  }).finally(() => worker.terminate());
}

const CLIENT = `
const { parentPort, workerData: { url, kind, size, rounds } } = require("node:worker_threads");
function body() {
  const bytes = new Uint8Array(size).fill(0x20);
  if (kind === "declared") return bytes;
  return new ReadableStream({
    start(controller) {
      for (let at = 0; at < size; at += 65536) controller.enqueue(bytes.subarray(at, at + 65536));
      controller.close();
    },
  });
}
(async () => {
  const answers = [];
  for (let i = 0; i < rounds; i++) {
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: "Bearer partner-a" },
        body: body(),
        duplex: "half",
        signal: AbortSignal.timeout(10000),
      });
      answers.push({
        status: res.status,
        connection: res.headers.get("connection"),
        contentType: res.headers.get("content-type"),
        body: await res.text(),
      });
    } catch (error) {
      answers.push({ error: error.message + " (" + (error.cause && (error.cause.code || error.cause.message)) + ")" });
    }
  }
  parentPort.postMessage(answers);
})();
`;

/**
 * The fetch adapter on node:http, bridged the way node servers for web handlers do: the body through
 * Readable.toWeb, and (as @hono/node-server's autoCleanupIncoming does) a request not read to its end
 * when the answer has been written is destroyed.
 */
function fetchBridge(handler: A2AHandler) {
  const fetchHandler = toFetchHandler(handler);
  return async (req: IncomingMessage, res: ServerResponse) => {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
    const request = new Request(`http://127.0.0.1${req.url}`, {
      method: req.method ?? "POST",
      headers,
      body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
      duplex: "half",
    } as RequestInit);
    const response = await fetchHandler(request);
    res.once("finish", () => {
      setImmediate(() => {
        if (!req.readableEnded) req.destroy();
      });
    });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    res.end(Buffer.from(await response.arrayBuffer()));
  };
}

interface Mounted {
  url: string;
  server: Server;
  handler: A2AHandler;
}

async function mount(adapter: "node" | "fetch"): Promise<Mounted> {
  const handler = createA2AHandler({
    ...testHandlerOptions(),
    basePath: "/api/v1/a2a",
  });
  const listener = adapter === "node" ? toNodeHandler(handler) : fetchBridge(handler);
  const server = createServer((req, res) => void listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1/a2a`, server, handler };
}

describe.each(["node", "fetch"] as const)("a 5 MiB body on the %s adapter", (adapter) => {
  let mounted: Mounted;
  beforeAll(async () => {
    mounted = await mount(adapter);
  });
  afterAll(async () => {
    await mounted.handler.close({ graceMs: 0 });
    mounted.server.closeAllConnections();
    await new Promise((resolve) => mounted.server.close(resolve));
  });

  const bindings = [
    [
      "JSON-RPC",
      "",
      (body: ErrorBody) => expect(body).toMatchObject({ id: null, error: { code: ERROR_CODES.InvalidRequest } }),
    ],
    ["HTTP+JSON", "/message:stream", (body: ErrorBody) => expect(body.error).toMatchObject({ code: 413 })],
  ] as const;

  it.each(bindings)("%s: every one of several in a row is answered 413 with its JSON body", async (_, path, check) => {
    for (const kind of ["declared", "chunked"] as const) {
      const answers = await uploadFromAnotherThread(mounted.url + path, kind);
      expect(answers).toHaveLength(ROUNDS);
      answers.forEach((answer, i) => {
        const label = `${kind} body, upload ${i + 1}`;
        if ("error" in answer) throw new Error(`${label}: ${answer.error}`);
        expect(answer.status, label).toBe(413);
        // node:http's connection is the adapter's to close; a web runtime owns its own connections.
        if (adapter === "node") expect(answer.connection, label).toBe("close");
        expect(answer.contentType, label).toMatch(/^application\/json/);
        const body = JSON.parse(answer.body) as ErrorBody;
        check(body);
        expect(body.error.message, label).toBe("The request body is larger than 262144 bytes");
      });
    }
  });

  it("answers at once, and closes, when the declared length is past what it would read to drop", async () => {
    const socket = connect((mounted.server.address() as AddressInfo).port, "127.0.0.1");
    const started = Date.now();
    const line = firstResponseLine(socket, (how, text) => `${how}: ${text}`);
    socket.write(
      "POST /api/v1/a2a HTTP/1.1\r\nhost: x\r\nauthorization: Bearer partner-a\r\ncontent-type: application/json\r\n" +
        `content-length: ${64 * 1024 * 1024}\r\n\r\n`,
    );
    expect(await line).toBe("HTTP/1.1 413 Payload Too Large");
    expect(Date.now() - started).toBeLessThan(2000);
  });
});
