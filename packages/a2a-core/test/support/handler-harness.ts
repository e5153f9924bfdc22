import type { LooseJson } from "@a2a-partner/test-support/loose-json";
import { afterEach } from "vitest";
import { toFetchHandler } from "../../src/adapters/fetch.js";
import { environmentOfStart } from "../../src/environments/environment-start.js";
import type { A2AHandlerOptions, Authenticate, AuthOutcome } from "../../src/index.js";
import { type A2AHandler, createA2AHandler } from "../../src/index.js";
import type {
  ExecutorUpdate,
  StartContext,
  StartPreparation,
  TaskExecutionContext,
  TaskExecutor,
  TaskOutcome,
} from "../../src/ports/task-executor.js";
import { decodeSseStream } from "../../src/protocol/sse/decoder.js";
import { createInMemoryStores, type InMemoryStores } from "../../src/stores/in-memory.js";

export const TOKENS: Record<string, AuthOutcome> = {
  "partner-a": { ok: true, workspaceId: "ws-a" },
  "partner-b": { ok: true, workspaceId: "ws-b" },
  "user-a": { ok: false, status: 403, message: "A user session token cannot call the partner endpoint" },
};

/** The test handlers' `authenticate`: a bearer token of TOKENS, else 401. */
export const authenticateTestToken: Authenticate = async (headers) => {
  const match = /^Bearer (.+)$/.exec(headers.get("authorization") ?? "");
  return (match && TOKENS[match[1] ?? ""]) || { ok: false, status: 401, message: "Missing or invalid bearer token" };
};

/**
 * An executor whose every step waits for the test to release it, so tests decide exactly when
 * progress happens. It counts how often it was dispatched. Its tasks run in Environments, as the
 * reference server's robots' do: the storeIds starting with `store-` (a subclass may add a
 * `defaultEnvironment`), checked at the start by environmentExecutor's rules.
 */
export class ScriptedExecutor implements TaskExecutor {
  dispatched = 0;
  readonly contexts: TaskExecutionContext[] = [];
  private gates: Array<() => void> = [];
  private waiting: Array<() => void> = [];

  constructor(
    private readonly steps: ExecutorUpdate[] = [
      { kind: "status", message: "robot-1 moving to aisle 5", metadata: { robotId: "robot-1", step: 1, percent: 50 } },
      { kind: "status", message: "robot-1 restocking", metadata: { robotId: "robot-1", step: 2, percent: 100 } },
    ],
    private readonly outcome: TaskOutcome = { state: "TASK_STATE_COMPLETED", message: "Done" },
    private readonly gated = false,
  ) {}

  async hasEnvironment(_workspaceId: string, storeId: string): Promise<boolean> {
    return storeId.startsWith("store-");
  }

  prepareStart(context: StartContext): Promise<StartPreparation> {
    return environmentOfStart(this, context);
  }

  async execute(context: TaskExecutionContext): Promise<TaskOutcome> {
    this.dispatched++;
    this.contexts.push(context);
    for (const step of this.steps) {
      if (this.gated) await this.gate(context.signal);
      if (context.signal.aborted) return { state: "TASK_STATE_FAILED" };
      await context.emit(step);
    }
    if (this.gated) await this.gate(context.signal);
    return this.outcome;
  }

  /** Lets one waiting step of one task proceed. */
  async release(): Promise<void> {
    while (this.gates.length === 0) await new Promise<void>((r) => this.waiting.push(r));
    this.gates.shift()?.();
  }

  private gate(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => resolve();
      signal.addEventListener("abort", done, { once: true });
      this.gates.push(done);
      for (const wake of this.waiting.splice(0)) wake();
    });
  }
}

export interface Harness<E extends TaskExecutor = ScriptedExecutor> {
  handler: A2AHandler;
  stores: InMemoryStores;
  executor: E;
  call(
    body: unknown,
    options?: { token?: string | null; headers?: Record<string, string>; signal?: AbortSignal },
  ): Promise<Response>;
  rpc(method: string, params: unknown, token?: string): Promise<{ status: number; body: LooseJson }>;
  /** A streaming start over JSON-RPC (`SendStreamingMessage` unless `method` says otherwise): its response. */
  stream(params?: unknown, options?: StreamOptions): Promise<Response>;
}

export interface StreamOptions {
  method?: string;
  /** The JSON-RPC request id. Default "s1". */
  id?: string | number;
  token?: string | null;
}

let counter = 0;

export function makeHarness<E extends TaskExecutor = ScriptedExecutor>(
  executor: E = new ScriptedExecutor() as TaskExecutor as E,
  options: Partial<A2AHandlerOptions> = {},
  create: typeof createA2AHandler = createA2AHandler,
): Harness<E> {
  const stores = createInMemoryStores();
  const handler = create({
    stores,
    executor,
    authenticate: authenticateTestToken,
    leaseMs: 60_000,
    // The harness's requests go to http://test/api/v1/a2a (JSON-RPC) and its HTTP+JSON routes below it.
    basePath: "/api/v1/a2a",
    // Quiet by default (the handler's own default prints warnings and errors); a test passes its own.
    logger: { info() {}, warn() {}, error() {} },
    ...options,
  });
  const fetchHandler = toFetchHandler(handler);
  const call: Harness["call"] = (body, opts = {}) => {
    const headers: Record<string, string> = { "content-type": "application/json", ...opts.headers };
    const token = opts.token === undefined ? "partner-a" : opts.token;
    if (token) headers.authorization = `Bearer ${token}`;
    return fetchHandler(
      new Request("http://test/api/v1/a2a", {
        method: "POST",
        headers,
        body: typeof body === "string" ? body : JSON.stringify(body),
        ...(opts.signal ? { signal: opts.signal } : {}),
      }),
    );
  };
  return {
    handler,
    stores,
    executor,
    call,
    async rpc(method, params, token) {
      const res = await call({ jsonrpc: "2.0", id: `r${++counter}`, method, params }, { token: token ?? "partner-a" });
      return { status: res.status, body: await res.json() };
    },
    stream(params = startParams(), { method = "SendStreamingMessage", id = "s1", token } = {}) {
      return call({ jsonrpc: "2.0", id, method, params }, token === undefined ? {} : { token });
    },
  };
}

/** For a test file: a `makeHarness` whose handlers are closed after each test. */
export function harnessPerTest(): typeof makeHarness {
  const harnesses: Harness<TaskExecutor>[] = [];
  afterEach(async () => {
    await Promise.all(harnesses.splice(0).map((h) => h.handler.close({ graceMs: 0 })));
  });
  return <E extends TaskExecutor = ScriptedExecutor>(...args: Parameters<typeof makeHarness<E>>) => {
    const h = makeHarness<E>(...args);
    harnesses.push(h);
    return h;
  };
}

/** What most handler tests start from: in-memory stores, a scripted executor, the test tokens, a quiet log. */
export function testHandlerOptions(): A2AHandlerOptions {
  return {
    stores: createInMemoryStores(),
    executor: new ScriptedExecutor(),
    authenticate: authenticateTestToken,
    logger: { info() {}, warn() {}, error() {} },
  };
}

/** Closes, after each test, what the test pushed onto the list (a server, a handler), in order. */
export function closedAfterEach(): Array<() => Promise<void>> {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
  });
  return closing;
}

export function startParams(text = "restock aisle 5", messageId?: string, storeId = "store-001") {
  return {
    message: { role: "user", parts: [{ kind: "text", text }], ...(messageId ? { messageId } : {}) },
    metadata: { storeId },
  };
}

export interface Frame {
  id: string | undefined;
  event: string;
  result: LooseJson;
  error?: LooseJson;
}

/** Reads every frame of an SSE response until it ends (or `limit` frames have arrived). */
export async function readFrames(response: Response, limit = Number.POSITIVE_INFINITY): Promise<Frame[]> {
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    throw new Error(`not a stream: ${response.status} ${await response.text()}`);
  }
  const frames: Frame[] = [];
  const body = response.body;
  if (!body) return frames;
  for await (const event of decodeSseStream(body)) {
    const data = JSON.parse(event.data);
    frames.push({ id: event.id, event: event.event, result: data.result, error: data.error });
    if (frames.length >= limit) break;
  }
  return frames;
}

export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await new Promise((r) => setTimeout(r, 5));
  }
}
