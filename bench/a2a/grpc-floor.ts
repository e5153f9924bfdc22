/**
 * The floor under any gRPC server in Node against the floor under any HTTP/1.1 JSON server, for issue 45's
 * target "GetTask over gRPC at a rate ≥ JSON-RPC's": a bare @grpc/grpc-js server with one unary method
 * that answers fixed bytes (no protobuf, no store, no auth, identity serializers), and a bare node:http
 * server that answers every POST with the same bytes. Each is loaded the way `pnpm bench:a2a` loads GetTask
 * (grpc-load.ts: grpc-js, one channel; load.ts: an undici pool), 32 at a time, in alternating rounds, each
 * server in a process of its own so its CPU is its own. Prints requests/s and server CPU per request.
 *
 *   node bench/a2a/grpc-floor.ts [--rounds 3] [--duration 5] [--concurrency 32]
 *
 * If the bare grpc-js server costs more per call than our whole JSON-RPC GetTask, no binding on grpc-js
 * can meet the target on the same machine; bench/NOTES.md has the figures.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { parseArgs } from "node:util";
import { createPool, requestsInWindow } from "./load.ts";
import { cpuInWindow } from "./proc.ts";

// bench/ is not a workspace package: grpc-js resolves from the client package, which depends on it.
const require = createRequire(new URL("../../packages/a2a-client/package.json", import.meta.url));
const grpc = require("@grpc/grpc-js") as typeof import("@grpc/grpc-js");

const PATH = "/lf.a2a.v1.A2AService/GetTask";
// About the size of the bench's GetTask answer (a completed task with its two messages).
const ANSWER = Buffer.from(
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    result: {
      id: "00000000-0000-4000-8000-000000000001",
      contextId: "00000000-0000-4000-8000-000000000002",
      status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-01T00:00:06.000Z" },
      history: [
        { role: "ROLE_USER", messageId: "m-1", parts: [{ text: "Restock aisle 5" }] },
        { role: "ROLE_AGENT", messageId: "00000000-0000-4000-8000-000000000005", parts: [{ text: "Done" }] },
      ],
      metadata: { storeId: "store-001", messageId: "m-1" },
    },
  }),
);
const REQUEST = Buffer.from(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t" } }));
const same = (bytes: Buffer) => bytes;

function serveGrpc(): void {
  const server = new grpc.Server();
  const method = {
    path: PATH,
    requestStream: false,
    responseStream: false,
    requestSerialize: same,
    requestDeserialize: same,
    responseSerialize: same,
    responseDeserialize: same,
  };
  server.addService(
    { GetTask: method },
    {
      GetTask: (_call: unknown, callback: (error: null, answer: Buffer) => void) => callback(null, ANSWER),
    },
  );
  server.bindAsync("127.0.0.1:0", grpc.ServerCredentials.createInsecure(), (error, port) => {
    if (error) throw error;
    process.stdout.write(`${port}\n`);
  });
}

function serveHttp(): void {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": ANSWER.byteLength });
      res.end(ANSWER);
    });
  });
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    process.stdout.write(`${typeof address === "object" && address ? address.port : 0}\n`);
  });
}

function startServer(kind: "grpc" | "http"): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [import.meta.filename, `serve-${kind}`], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the ${kind} floor server exited (${code})`)));
    child.stdout?.once("data", (chunk: Buffer) => resolve({ child, port: Number(chunk.toString().trim()) }));
  });
}

interface Figures {
  perSecond: number;
  cpuMicros: number;
  errors: number;
}

async function measure(kind: "grpc" | "http", window: { concurrency: number; warmupMs: number; durationMs: number }) {
  const { child, port } = await startServer(kind);
  const pid = child.pid as number;
  try {
    let send: () => Promise<boolean>;
    let close: () => Promise<void>;
    if (kind === "grpc") {
      const client = new grpc.Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
      const metadata = new grpc.Metadata();
      metadata.set("authorization", "Bearer floor");
      send = () =>
        new Promise((resolve) =>
          client.makeUnaryRequest(PATH, same, same, REQUEST, metadata, (error, answer) =>
            resolve(!error && (answer?.byteLength ?? 0) > 0),
          ),
        );
      close = async () => client.close();
    } else {
      const pool = createPool(`http://127.0.0.1:${port}`, window.concurrency);
      const headers = { "content-type": "application/json", authorization: "Bearer floor" };
      send = async () => {
        const res = await pool.request({ path: "/", method: "POST", headers, body: REQUEST });
        return res.statusCode === 200 && (await res.body.text()).length > 0;
      };
      close = () => pool.close();
    }
    const [load, cpu] = await Promise.all([
      requestsInWindow(window, () => send()),
      cpuInWindow(pid, window.warmupMs, window.durationMs),
    ]);
    await close();
    return { perSecond: load.perSecond, cpuMicros: (cpu / load.requests) * 1e6, errors: load.errors } as Figures;
  } finally {
    child.kill();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      rounds: { type: "string", default: "3" },
      duration: { type: "string", default: "5" },
      concurrency: { type: "string", default: "32" },
    },
  });
  const window = {
    concurrency: Number(values.concurrency),
    warmupMs: 1_000,
    durationMs: Number(values.duration) * 1000,
  };
  const results: Record<"grpc" | "http", Figures[]> = { grpc: [], http: [] };
  for (let round = 0; round < Number(values.rounds); round++) {
    const order: ("grpc" | "http")[] = round % 2 === 0 ? ["http", "grpc"] : ["grpc", "http"];
    for (const kind of order) {
      const figures = await measure(kind, window);
      results[kind].push(figures);
      console.log(
        `round ${round + 1} ${kind}: ${figures.perSecond.toFixed(0)} req/s, ` +
          `${figures.cpuMicros.toFixed(1)} µs server CPU per request, ${figures.errors} errors`,
      );
    }
  }
  for (const kind of ["http", "grpc"] as const) {
    const rates = results[kind].map((r) => r.perSecond);
    const cpus = results[kind].map((r) => r.cpuMicros);
    console.log(
      `${kind === "http" ? "bare node:http, undici pool" : "bare grpc-js, one channel"}: ` +
        `median ${median(rates).toFixed(0)} req/s (${Math.min(...rates).toFixed(0)}–${Math.max(...rates).toFixed(0)}), ` +
        `${median(cpus).toFixed(1)} µs server CPU per request (${Math.min(...cpus).toFixed(1)}–${Math.max(...cpus).toFixed(1)})`,
    );
  }
}

const mode = process.argv[2];
if (mode === "serve-grpc") serveGrpc();
else if (mode === "serve-http") serveHttp();
else await main();
