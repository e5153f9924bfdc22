import type { z } from "zod";
import { toFetchHandler } from "../adapters/fetch.js";
import {
  InternalError,
  InvalidParamsError,
  InvalidRequestError,
  isA2AError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "../errors.js";
import { type DecodedRequest, decodeJsonRpcRequest, jsonRpcError, jsonRpcResult } from "../jsonrpc/codec.js";
import { METHODS, type MethodName } from "../methods.js";
import { isTerminalState, type Message, type Task } from "../schemas/a2a.js";
import type { JsonRpcId } from "../schemas/jsonrpc.js";
import { GetTaskParams, SendStreamingMessageParams, TaskIdParams } from "../schemas/params.js";
import type { TaskRecord } from "../stores/types.js";
import { findNulCharacter } from "./find-nul.js";
import { type A2AHandlerOptions, type AuthOutcome, DEFAULTS, type Logger, silentLogger } from "./options.js";
import { type RateLimiter, TokenBucketRateLimiter } from "./rate-limiter.js";
import { type A2AHandlerResponse, JSON_HEADERS, SSE_HEADERS } from "./response.js";
import { TaskRunner } from "./task-runner.js";
import { TASK_EVENT_SEQ, taskStreamFrames } from "./task-stream.js";
import { textOfMessage } from "./text-of-message.js";

export interface A2AHandlerRequest {
  headers: Headers;
  /** The raw request body (the adapters enforce the size limit before this point). */
  body: string;
  /** Aborts when the client goes away; ends a stream, never the task. */
  signal?: AbortSignal;
}

export interface A2AHandler {
  /** Answers one JSON-RPC request: a JSON response or an SSE stream. Never throws. */
  handle(request: A2AHandlerRequest): Promise<A2AHandlerResponse>;
  /** The handler on web-standard Request/Response (Bun, Deno, edge runtimes, hono); see `toFetchHandler`. */
  fetch(request: Request): Promise<Response>;
  /** Largest request body the adapters accept. */
  readonly maxBodyBytes: number;
  /** Ends orphaned tasks now (it also runs periodically); returns how many it ended. */
  recoverOrphanedTasks(): Promise<number>;
  /**
   * Graceful shutdown: ends open streams cleanly (clients reattach elsewhere), waits up to `graceMs` for
   * running tasks, then ends the rest `failed` so none stays `working`.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

interface Caller {
  workspaceId: string;
  /** Rate limits and stream caps count per key: the credential's principal, else the workspace. */
  key: string;
}

/** The framework-agnostic A2A request handler. Adapters: `toFetchHandler`, `toNodeHandler`. */
export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  const { stores, executor, authenticate } = options;
  const logger: Logger = options.logger ?? silentLogger;
  const now = options.now ?? (() => new Date());
  const generateId = options.generateId ?? (() => crypto.randomUUID());
  const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
  const keepAliveMs = options.keepAliveMs ?? DEFAULTS.keepAliveMs;
  const shutdown = new AbortController();
  const rateLimiter: RateLimiter | undefined =
    options.rateLimit === undefined
      ? undefined
      : "take" in options.rateLimit
        ? options.rateLimit
        : new TokenBucketRateLimiter({
            ratePerSecond: options.rateLimit.requestsPerSecond,
            ...(options.rateLimit.burst === undefined ? {} : { burst: options.rateLimit.burst }),
          });
  const maxOpenStreams = options.maxOpenStreamsPerCaller;
  const openStreams = new Map<string, number>();
  const runner = new TaskRunner({
    tasks: stores.tasks,
    events: stores.events,
    executor,
    logger,
    now,
    generateId,
    instanceId: options.instanceId ?? `runner-${crypto.randomUUID()}`,
    leaseMs,
    recoveryIntervalMs: options.recoveryIntervalMs ?? Math.floor(leaseMs / 2),
  });
  // Tasks orphaned by an earlier crash are ended as soon as the handler exists.
  void runner.recoverOrphans();

  async function handle(request: A2AHandlerRequest): Promise<A2AHandlerResponse> {
    if (shutdown.signal.aborted) return unavailable("The server is shutting down; retry the request");
    let id: JsonRpcId | null = null;
    try {
      let auth: AuthOutcome;
      try {
        auth = await authenticate(request.headers);
      } catch (error) {
        // The credential store is unreachable (e.g. a database outage): a retryable condition.
        logger.error({ err: error }, "authentication failed");
        return unavailable("Service temporarily unavailable; retry the request");
      }
      if (!auth.ok) return authFailure(auth.status, auth.message);
      const caller: Caller = { workspaceId: auth.workspaceId, key: auth.principal ?? `workspace:${auth.workspaceId}` };
      // Counted before decoding, so a flood of garbage is limited like any other traffic.
      const decision = rateLimiter?.take(caller.key, now().getTime());
      if (decision && !decision.allowed) return tooManyRequests(decision.retryAfterMs, "Rate limit exceeded");
      const decoded = decodeJsonRpcRequest(request.body);
      if (!decoded.ok) return json(decoded.id, decoded.error);
      id = decoded.request.id;
      return await dispatch(decoded.request, caller, request);
    } catch (error) {
      if (isA2AError(error)) return json(id, error);
      // Not a protocol error: the store failed (an outage) or a bug. Either way the caller may retry, so
      // answer 503 + Retry-After (clients retry 5xx) with a bare -32603 that reveals nothing.
      logger.error({ err: error }, "request failed");
      return unavailable("Service temporarily unavailable; retry the request", id);
    }
  }

  async function dispatch(req: DecodedRequest, caller: Caller, http: A2AHandlerRequest): Promise<A2AHandlerResponse> {
    const method: MethodName = req.method;
    if (!METHODS[method].implemented) throw UnsupportedOperationError.forMethod(req.wireMethod);
    if (
      METHODS[method].streaming &&
      maxOpenStreams !== undefined &&
      (openStreams.get(caller.key) ?? 0) >= maxOpenStreams
    ) {
      return tooManyRequests(1000, `Too many open streams (at most ${maxOpenStreams} per caller); close one first`);
    }
    switch (method) {
      case "SendStreamingMessage":
        return sendStreamingMessage(req, caller, http);
      case "SubscribeToTask": {
        const params = parseParams(TaskIdParams, req.params);
        const record = await findTask(caller, params.id);
        return stream(req.id, record, reattachCursor(record, http.headers), caller, http.signal);
      }
      case "GetTask": {
        const params = parseParams(GetTaskParams, req.params);
        const record = await findTask(caller, params.id);
        return json(req.id, undefined, withHistoryLength(record.task, params.historyLength));
      }
      case "CancelTask": {
        const params = parseParams(TaskIdParams, req.params);
        return json(req.id, undefined, await cancelTask(caller, params.id));
      }
      default:
        throw UnsupportedOperationError.forMethod(req.wireMethod);
    }
  }

  async function sendStreamingMessage(req: DecodedRequest, caller: Caller, http: A2AHandlerRequest) {
    const params = parseParams(SendStreamingMessageParams, req.params);
    const nulAt = findNulCharacter(params);
    if (nulAt) throw InvalidParamsError.forField(nulAt, "must not contain the character U+0000");
    const { message } = params;
    const storeId = params.metadata.storeId;
    // Contract rule 1: a retry with a known messageId gets its original task back, whatever else it says.
    if (message.messageId !== undefined) {
      const existing = await stores.idempotency.get(caller.workspaceId, message.messageId);
      if (existing) return reattachRetry(req, existing, message, storeId, caller, http);
    }
    if (message.role !== "user") {
      throw InvalidParamsError.forField("params.message.role", 'a partner task is sent with role "user"');
    }
    if (message.taskId !== undefined) {
      throw new UnsupportedOperationError(
        "Continuing an existing task with message.taskId is not supported; start a new task or use SubscribeToTask",
        { field: "params.message.taskId" },
      );
    }
    const text = textOfMessage(message);
    if (text.length === 0) {
      throw InvalidParamsError.forField("params.message.parts", "the message needs at least one non-empty text part");
    }
    if (executor.hasEnvironment && !(await executor.hasEnvironment(caller.workspaceId, storeId))) {
      throw InvalidParamsError.forField(
        "params.metadata.storeId",
        "no Environment with this storeId in your workspace",
      );
    }

    const task = newTask(message, storeId);
    const input = { workspaceId: caller.workspaceId, task, lease: runner.newLease(), createdAt: task.status.timestamp };
    // Without a messageId there is no idempotency: every such start is a new task (contract rule 3).
    const { record, created } =
      message.messageId === undefined
        ? { record: await stores.tasks.create(input), created: true }
        : await stores.idempotency.createOrGet(message.messageId, input);
    // Not created: a concurrent start with the same key won the race, so this request is its retry.
    if (!created) return reattachRetry(req, record, message, storeId, caller, http);
    runner.start(record, task.history[0] ?? message, text);
    return stream(req.id, record, TASK_EVENT_SEQ, caller, http.signal);
  }

  function reattachRetry(
    req: DecodedRequest,
    record: TaskRecord,
    message: Message,
    storeId: string,
    caller: Caller,
    http: A2AHandlerRequest,
  ): A2AHandlerResponse {
    warnIfRetryDiffers(record, textOfMessage(message), storeId);
    return stream(req.id, record, reattachCursor(record, http.headers), caller, http.signal);
  }

  function newTask(message: Message, storeId: string): Task {
    const id = generateId();
    const contextId = message.contextId ?? generateId();
    const timestamp = now().toISOString();
    return {
      kind: "task",
      id,
      contextId,
      status: { state: "working", timestamp },
      history: [{ ...message, kind: "message", taskId: id, contextId }],
      artifacts: [],
      metadata: { storeId, ...(message.messageId === undefined ? {} : { messageId: message.messageId }) },
    };
  }

  function warnIfRetryDiffers(record: TaskRecord, text: string, storeId: string): void {
    const original = record.task.history[0];
    const originalText = original ? textOfMessage(original) : undefined;
    if (originalText !== text || record.task.metadata.storeId !== storeId) {
      logger.warn(
        {
          taskId: record.task.id,
          messageId: record.messageId,
          storeIdDiffers: record.task.metadata.storeId !== storeId,
        },
        "retry with a known messageId differs from the original request; returning the original task",
      );
    }
  }

  async function cancelTask(caller: Caller, taskId: string): Promise<Task> {
    const record = await findTask(caller, taskId);
    if (isTerminalState(record.task.status.state)) {
      throw TaskNotCancelableError.forTask(taskId, record.task.status.state);
    }
    const finished = await runner.finish(record, "canceled", "Canceled at the partner's request.");
    const after = await findTask(caller, taskId);
    if (!finished) {
      // Another writer ended the task between our read and our write.
      throw TaskNotCancelableError.forTask(taskId, after.task.status.state);
    }
    runner.abortLocal(taskId);
    return after.task;
  }

  async function findTask(caller: Caller, taskId: string): Promise<TaskRecord> {
    const record = await stores.tasks.get(caller.workspaceId, taskId);
    // Another workspace's task is reported exactly like an unknown one.
    if (!record) throw TaskNotFoundError.forTask(taskId);
    return record;
  }

  function stream(
    requestId: JsonRpcId,
    record: TaskRecord,
    afterSeq: number,
    caller: Caller,
    signal?: AbortSignal,
  ): A2AHandlerResponse {
    const streamSignal = signal ? AbortSignal.any([signal, shutdown.signal]) : shutdown.signal;
    const frames = taskStreamFrames({
      tasks: stores.tasks,
      events: stores.events,
      logger,
      requestId,
      record,
      afterSeq,
      keepAliveMs,
      signal: streamSignal,
    });
    return {
      kind: "sse",
      status: 200,
      headers: { ...SSE_HEADERS },
      frames: tracked(frames, record.task.id, caller.key),
    };
  }

  /**
   * Counts the stream as open while it runs, and ends it quietly on a store failure (the client
   * reattaches): a broken stream must not crash the process.
   */
  async function* tracked(frames: AsyncGenerator<string>, taskId: string, callerKey: string): AsyncGenerator<string> {
    openStreams.set(callerKey, (openStreams.get(callerKey) ?? 0) + 1);
    try {
      yield* frames;
    } catch (error) {
      logger.error({ err: error, taskId }, "task stream ended by an error");
    } finally {
      const left = (openStreams.get(callerKey) ?? 1) - 1;
      if (left > 0) openStreams.set(callerKey, left);
      else openStreams.delete(callerKey);
    }
  }

  function tooManyRequests(retryAfterMs: number, message: string): A2AHandlerResponse {
    return {
      kind: "json",
      status: 429,
      headers: {
        ...JSON_HEADERS,
        "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
        "retry-after-ms": String(retryAfterMs),
      },
      body: jsonRpcError(null, new InvalidRequestError(message, { httpStatus: 429, retryAfterMs })),
    };
  }

  function unavailable(message: string, id: JsonRpcId | null = null): A2AHandlerResponse {
    return {
      kind: "json",
      status: 503,
      headers: { ...JSON_HEADERS, "retry-after": "1" },
      body: jsonRpcError(id, new InternalError(message)),
    };
  }

  function authFailure(status: 401 | 403, message: string): A2AHandlerResponse {
    const headers: Record<string, string> = { ...JSON_HEADERS };
    if (status === 401) headers["www-authenticate"] = 'Bearer realm="a2a"';
    return {
      kind: "json",
      status,
      headers,
      body: jsonRpcError(null, new InvalidRequestError(message, { httpStatus: status })),
    };
  }

  const handler: A2AHandler = {
    handle,
    fetch: (request) => fetchHandler(request),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    recoverOrphanedTasks: () => runner.recoverOrphans(),
    async close(closeOptions) {
      shutdown.abort();
      await runner.close(closeOptions?.graceMs ?? 10_000);
    },
  };
  const fetchHandler = toFetchHandler(handler);
  return handler;
}

function json(id: JsonRpcId | null, error: unknown, result?: unknown): A2AHandlerResponse {
  const body = error === undefined ? jsonRpcResult(id, result) : jsonRpcError(id, error);
  return { kind: "json", status: 200, headers: { ...JSON_HEADERS }, body };
}

function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.infer<T> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw InvalidParamsError.fromZod(parsed.error);
  return parsed.data;
}

/** Where a reattach resumes: after the client's `Last-Event-ID`, else after the newest event (only new ones). */
function reattachCursor(record: TaskRecord, headers: Headers): number {
  const header = headers.get("last-event-id");
  if (header !== null && /^\d{1,9}$/.test(header.trim())) return Number(header.trim());
  return record.lastSeq;
}

function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}
