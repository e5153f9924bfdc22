import type { z } from "zod";
import { toFetchHandler } from "../adapters/fetch.js";
import { DIALECT_V1, DIALECT_V03, type Dialect, dialectFor } from "../protocol/dialect/dialect.js";
import { requestedProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from "../protocol/dialect/protocol-version.js";
import {
  InvalidParamsError,
  isA2AError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from "../protocol/errors.js";
import { findNulCharacter } from "../methods/support/find-nul.js";
import {
  authFailure,
  bodyRefusal,
  jsonAnswer,
  tooManyRequests,
  unavailable,
} from "../bindings/jsonrpc/json-responses.js";
import { pullFrames } from "../runtime/streams/pull-frames.js";
import { TaskRunner } from "../runtime/runner/task-runner.js";
import { textOfMessage } from "../methods/support/text-of-message.js";
import { OpenStreams } from "../runtime/streams/open-streams.js";
import type { ReleaseSlot } from "../runtime/streams/stream-slots.js";
import { StreamSlots } from "../runtime/streams/stream-slots.js";
import { TaskHub } from "../runtime/hub/task-hub.js";
import { TaskSubscription } from "../runtime/streams/task-subscription.js";
import { type DecodedRequest, decodeJsonRpcRequest } from "../bindings/jsonrpc/codec.js";
import { METHODS, type MethodName } from "../protocol/method-names.js";
import { isTerminalState, type Message, type Task } from "../protocol/schemas/a2a.js";
import type { JsonRpcId } from "../protocol/schemas/jsonrpc.js";
import { GetTaskParams, ListTasksParams, SendStreamingMessageParams, TaskIdParams } from "../protocol/schemas/params.js";
import type { TaskRecord } from "../ports/task-records.js";
import { HandlerTelemetry, type RequestTrace } from "../telemetry/handler-telemetry.js";
import { listTasks } from "../methods/list-tasks.js";
import {
  type A2AHandlerOptions,
  type AuthOutcome,
  consoleLogger,
  DEFAULTS,
  type HeaderReader,
  type Logger,
} from "./handler-options.js";
import { type RateLimiter, TokenBucketRateLimiter } from "../runtime/admission/rate-limiter.js";
import { type A2AHandlerResponse, type A2AStreamResponse, SSE_HEADERS } from "../ports/handler-response.js";

export interface A2AHandlerRequest {
  /** The request headers: a web `Headers`, or anything with the same `get`. */
  headers: HeaderReader;
  /**
   * The raw request body, or a function that reads it. A function is called only once the caller is
   * authenticated and within its rate, so an anonymous request never costs a body read; it rejects with
   * a `BodyReadError` for a body over the limit or not UTF-8.
   */
  body: string | (() => Promise<string>);
  /**
   * The request URL (absolute, or path and query): its `A2A-Version` query parameter chooses the dialect
   * when the header does not (docs/interop.md).
   */
  url?: string;
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

/** A request that answers with a stream, and what its stream needs: the caller's slot, dialect and trace. */
interface StreamCall {
  req: DecodedRequest;
  caller: Caller;
  headers: HeaderReader;
  /** Gives the caller's stream slot back; the stream calls it when it ends. */
  release: ReleaseSlot;
  dialect: Dialect;
  trace: RequestTrace;
}

/** Sequence number of a task's first event, the `task` frame. */
const TASK_EVENT_SEQ = 1;

/** The framework-agnostic A2A request handler. Adapters: `toFetchHandler`, `toNodeHandler`. */
export function createA2AHandler(options: A2AHandlerOptions): A2AHandler {
  const { stores, executor, authenticate } = options;
  const logger: Logger = options.logger ?? consoleLogger;
  const now = options.now ?? (() => new Date());
  const generateId = options.generateId ?? (() => crypto.randomUUID());
  const leaseMs = options.leaseMs ?? DEFAULTS.leaseMs;
  const instanceId = options.instanceId ?? `runner-${crypto.randomUUID()}`;
  const maxStreamBacklogBytes = options.maxStreamBacklogBytes ?? DEFAULTS.maxStreamBacklogBytes;
  // Shared by every stream: past maxBytes a client has a third of keepAliveMs to catch up; past 8× none.
  const backlogBounds = { maxBytes: maxStreamBacklogBytes, hardMaxBytes: 8 * maxStreamBacklogBytes };
  let closing = false;
  const rateLimiter: RateLimiter | undefined =
    options.rateLimit === undefined
      ? undefined
      : "take" in options.rateLimit
        ? options.rateLimit
        : new TokenBucketRateLimiter({
            ratePerSecond: options.rateLimit.requestsPerSecond,
            ...(options.rateLimit.burst === undefined ? {} : { burst: options.rateLimit.burst }),
          });
  const slots = new StreamSlots(options.maxOpenStreamsPerCaller);
  const maxRequestsInFlight = options.maxRequestsInFlight;
  let inFlight = 0;
  const openStreams = new OpenStreams(options.keepAliveMs ?? DEFAULTS.keepAliveMs);
  // OpenTelemetry through its API only: a no-op unless the application registered an SDK.
  const telemetry = new HandlerTelemetry();
  const hub = new TaskHub({
    tasks: stores.tasks,
    events: stores.events,
    logger,
    instanceId,
    terminalCacheSize: options.terminalTaskCacheSize ?? DEFAULTS.terminalTaskCacheSize,
    onLost: (taskId) => runner.abortLocal(taskId),
  });
  const runner = new TaskRunner({
    hub,
    tasks: stores.tasks,
    events: stores.events,
    executor,
    logger,
    now,
    generateId,
    instanceId,
    leaseMs,
    telemetry,
    recoveryIntervalMs: options.recoveryIntervalMs ?? Math.floor(leaseMs / 2),
  });
  // Tasks orphaned by an earlier crash are ended as soon as the handler exists.
  void runner.recoverOrphans();

  async function handle(request: A2AHandlerRequest): Promise<A2AHandlerResponse> {
    const trace = telemetry.startRequest(request.headers);
    const response = await admit(request, trace);
    telemetry.endRequest(trace, response);
    return response;
  }

  async function admit(request: A2AHandlerRequest, trace: RequestTrace): Promise<A2AHandlerResponse> {
    if (closing) {
      telemetry.refused("shutting_down");
      return unavailable("The server is shutting down; retry the request");
    }
    if (maxRequestsInFlight !== undefined && inFlight >= maxRequestsInFlight) {
      telemetry.refused("in_flight_limit");
      return unavailable("The server is busy; retry the request");
    }
    inFlight++;
    // The dialect is chosen per request (A2A-Version); an unknown version is refused in v1.0 terms.
    const requested = requestedProtocolVersion(request.headers, request.url);
    const dialect = requested.ok ? dialectFor(requested.version) : DIALECT_V1;
    try {
      const refusal = requested.ok
        ? undefined
        : VersionNotSupportedError.forVersion(requested.requested, SUPPORTED_PROTOCOL_VERSIONS);
      return inDialect(dialect, await answer(request, trace, dialect, refusal));
    } finally {
      inFlight--;
    }
  }

  async function answer(
    request: A2AHandlerRequest,
    trace: RequestTrace,
    dialect: Dialect,
    versionRefusal: VersionNotSupportedError | undefined,
  ): Promise<A2AHandlerResponse> {
    let id: JsonRpcId | null = null;
    try {
      let auth: AuthOutcome;
      try {
        auth = await authenticate(request.headers);
      } catch (error) {
        // The credential store is unreachable (e.g. a database outage): a retryable condition.
        logger.error({ err: error, ...telemetry.logFields(trace) }, "authentication failed");
        return unavailable("Service temporarily unavailable; retry the request");
      }
      if (!auth.ok) return authFailure(auth.status, auth.message);
      const caller: Caller = { workspaceId: auth.workspaceId, key: auth.principal ?? `workspace:${auth.workspaceId}` };
      // Counted before decoding, so a flood of garbage is limited like any other traffic.
      const decision = rateLimiter?.take(caller.key, now().getTime());
      if (decision && !decision.allowed) {
        telemetry.refused("rate_limit");
        return tooManyRequests(decision.retryAfterMs, "Rate limit exceeded");
      }
      let body: string;
      try {
        body = typeof request.body === "string" ? request.body : await request.body();
      } catch (error) {
        return bodyRefusal(error);
      }
      const decoded = decodeJsonRpcRequest(body);
      if (!decoded.ok) return jsonAnswer(decoded.id, decoded.error);
      id = decoded.request.id;
      telemetry.decoded(trace, decoded.request);
      if (versionRefusal) throw versionRefusal;
      return await dispatch(decoded.request, caller, request.headers, dialect, trace);
    } catch (error) {
      if (isA2AError(error)) {
        // e.g. a store refusing the request's data (InvalidParamsError): the client gets -32602, the log the cause.
        if (error.cause !== undefined) {
          logger.warn({ err: error.cause, code: error.code, ...telemetry.logFields(trace) }, "request refused");
        }
        return jsonAnswer(id, error);
      }
      // Not a protocol error: the store failed (an outage) or a bug. Either way the caller may retry, so
      // answer 503 + Retry-After (clients retry 5xx) with a bare -32603 that reveals nothing.
      logger.error({ err: error, ...telemetry.logFields(trace) }, "request failed");
      return unavailable("Service temporarily unavailable; retry the request", id);
    }
  }

  async function dispatch(
    decoded: DecodedRequest,
    caller: Caller,
    headers: HeaderReader,
    dialect: Dialect,
    trace: RequestTrace,
  ): Promise<A2AHandlerResponse> {
    const method: MethodName = decoded.method;
    if (!METHODS[method].implemented) throw UnsupportedOperationError.forMethod(decoded.wireMethod);
    // From here on the request is in the v0.3 shapes, whichever dialect it came in.
    const req: DecodedRequest = { ...decoded, params: dialect.params(method, decoded.params) };
    switch (method) {
      case "SendStreamingMessage":
      case "SubscribeToTask": {
        // The slot is taken now, so a burst cannot get past the cap; the stream gives it back.
        const release = slots.reserve(caller.key);
        if (!release) {
          telemetry.refused("stream_cap");
          return tooManyRequests(
            1000,
            `Too many open streams (at most ${options.maxOpenStreamsPerCaller} per caller); close one first`,
          );
        }
        const call: StreamCall = { req, caller, headers, release, dialect, trace };
        try {
          return method === "SendStreamingMessage" ? await sendStreamingMessage(call) : await subscribeToTask(call);
        } catch (error) {
          release();
          throw error;
        }
      }
      case "GetTask": {
        const params = parseParams(GetTaskParams, req.params);
        telemetry.taskOf(trace, params.id);
        const record = await findTask(caller, params.id);
        return jsonAnswer(req.id, undefined, dialect.task(withHistoryLength(record.task, params.historyLength)));
      }
      case "CancelTask": {
        const params = parseParams(TaskIdParams, req.params);
        telemetry.taskOf(trace, params.id);
        const canceled = await telemetry.within(trace.span, () => cancelTask(caller, params.id));
        return jsonAnswer(req.id, undefined, dialect.task(canceled));
      }
      case "ListTasks": {
        const params = parseParams(ListTasksParams, req.params);
        return jsonAnswer(req.id, undefined, dialect.list(await listTasks(stores.tasks, caller.workspaceId, params)));
      }
      default:
        throw UnsupportedOperationError.forMethod(req.wireMethod);
    }
  }

  async function subscribeToTask(call: StreamCall): Promise<A2AHandlerResponse> {
    const params = parseParams(TaskIdParams, call.req.params);
    telemetry.taskOf(call.trace, params.id);
    const record = await findTask(call.caller, params.id);
    // A2A v1.0 refuses to subscribe to an ended task; the v0.3 dialect replays task, finished, final.
    if (call.dialect.version === "1.0" && isTerminalState(record.task.status.state)) {
      throw new UnsupportedOperationError(
        `Task ${params.id} has already ended (${record.task.status.state}); read it with GetTask`,
        { taskId: params.id, state: record.task.status.state },
      );
    }
    return stream(call, record, reattachCursor(record, call.headers));
  }

  async function sendStreamingMessage(call: StreamCall): Promise<A2AHandlerResponse> {
    const { caller, trace } = call;
    const params = parseParams(SendStreamingMessageParams, call.req.params);
    const { message } = params;
    const storeId = params.metadata.storeId;
    const text = textOfMessage(message);
    // Contract rule 1: a retry with a known messageId gets its original task back, whatever else it says.
    // Checked first only when the request would be refused otherwise; a valid start asks the store once
    // ("the task for this key, or a new one") and so learns the same.
    const refusal = await startRefusal(params, text, caller);
    if (refusal) {
      const existing =
        message.messageId === undefined
          ? undefined
          : await stores.idempotency.get(caller.workspaceId, message.messageId);
      if (!existing) throw refusal;
      return reattachRetry(call, existing, message, storeId);
    }

    const task = newTask(message, storeId);
    const input = { workspaceId: caller.workspaceId, task, lease: runner.newLease(), createdAt: task.status.timestamp };
    // The one write of a start, inside the request's span so the store's span nests under it. Without a
    // messageId the store always creates: every such start is a new task (contract rule 3).
    const { record, created } = await telemetry.within(trace.span, () =>
      stores.idempotency.createOrGet(message.messageId, input),
    );
    // Not created: an earlier or concurrent start with the same key won, so this request is its retry.
    if (!created) return reattachRetry(call, record, message, storeId);
    telemetry.taskOf(trace, record.task.id);
    // The stored task's own first message (and its text), not `task`'s: the request's objects can then be
    // collected while the task runs, and a running task holds one copy of its message instead of two.
    const first = record.task.history[0] ?? message;
    runner.start(record, first, textOfMessage(first), trace);
    return stream(call, record, TASK_EVENT_SEQ);
  }

  /** Why a task start would be refused, or undefined if it may start. */
  async function startRefusal(
    params: SendStreamingMessageParams,
    text: string,
    caller: Caller,
  ): Promise<Error | undefined> {
    const { message } = params;
    const nulAt = findNulCharacter(params);
    if (nulAt) return InvalidParamsError.forField(nulAt, "must not contain the character U+0000");
    if (message.role !== "user") {
      return InvalidParamsError.forField("params.message.role", 'a partner task is sent with role "user"');
    }
    if (message.taskId !== undefined) {
      return new UnsupportedOperationError(
        "Continuing an existing task with message.taskId is not supported; start a new task or use SubscribeToTask",
        { field: "params.message.taskId" },
      );
    }
    if (text.length === 0) {
      return InvalidParamsError.forField("params.message.parts", "the message needs at least one non-empty text part");
    }
    if (executor.hasEnvironment && !(await executor.hasEnvironment(caller.workspaceId, params.metadata.storeId))) {
      return InvalidParamsError.forField(
        "params.metadata.storeId",
        "no Environment with this storeId in your workspace",
      );
    }
    return undefined;
  }

  function reattachRetry(call: StreamCall, record: TaskRecord, message: Message, storeId: string): A2AHandlerResponse {
    telemetry.taskOf(call.trace, record.task.id);
    warnIfRetryDiffers(record, textOfMessage(message), storeId, call.trace);
    return stream(call, record, reattachCursor(record, call.headers));
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

  function warnIfRetryDiffers(record: TaskRecord, text: string, storeId: string, trace: RequestTrace): void {
    const original = record.task.history[0];
    const originalText = original ? textOfMessage(original) : undefined;
    if (originalText !== text || record.task.metadata.storeId !== storeId) {
      logger.warn(
        {
          taskId: record.task.id,
          messageId: record.messageId,
          storeIdDiffers: record.task.metadata.storeId !== storeId,
          ...telemetry.logFields(trace),
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
    if (!finished) {
      // Another writer ended the task between our read and our write.
      const after = await findTask(caller, taskId);
      throw TaskNotCancelableError.forTask(taskId, after.task.status.state);
    }
    runner.abortLocal(taskId);
    return (await findTask(caller, taskId)).task;
  }

  /** The task, from memory when this process knows it for certain, else from the store. */
  async function findTask(caller: Caller, taskId: string): Promise<TaskRecord> {
    const known = hub.known(caller.workspaceId, taskId);
    if (known) return known;
    const record = await stores.tasks.get(caller.workspaceId, taskId);
    // Another workspace's task is reported exactly like an unknown one.
    if (!record) throw TaskNotFoundError.forTask(taskId);
    hub.remember(record);
    return record;
  }

  function stream(call: StreamCall, record: TaskRecord, afterSeq: number): A2AStreamResponse {
    const { release, dialect, trace } = call;
    // A terminal task always replays its `finished` event, so every stream ends with finished + final.
    // The `task` frame stands for seq 1, so a replay starts after it at the earliest.
    let cursor = Math.max(TASK_EVENT_SEQ, Math.min(afterSeq, record.lastSeq));
    if (isTerminalState(record.task.status.state)) cursor = Math.min(cursor, record.lastSeq - 1);
    const requestIdJson = JSON.stringify(call.req.id);
    let started = false;
    const start = (sink: Parameters<A2AStreamResponse["start"]>[0]) => {
      if (started) throw new Error("a stream is started once");
      started = true;
      const span = telemetry.startStream(trace, record.task.id, cursor);
      const subscription = new TaskSubscription(
        record.task.id,
        requestIdJson,
        sink,
        backlogBounds,
        cursor,
        openStreams.now(),
        (ended) => {
          openStreams.delete(ended);
          hub.unsubscribe(ended);
          release();
          telemetry.endStream(trace, span, ended);
        },
        dialect.stream,
      );
      if (closing) {
        subscription.end("shutdown");
        return () => {};
      }
      openStreams.add(subscription);
      hub.subscribe(record, subscription);
      return () => subscription.detach();
    };
    return {
      kind: "sse",
      status: 200,
      headers: { ...SSE_HEADERS },
      start,
      frames: pullFrames(start),
    };
  }

  const handler: A2AHandler = {
    handle,
    fetch: (request) => fetchHandler(request),
    maxBodyBytes: options.maxBodyBytes ?? DEFAULTS.maxBodyBytes,
    recoverOrphanedTasks: () => runner.recoverOrphans(),
    async close(closeOptions) {
      closing = true;
      openStreams.endAll();
      await runner.close(closeOptions?.graceMs ?? 10_000);
    },
  };
  const fetchHandler = toFetchHandler(handler);
  return handler;
}

/** A JSON error answer in the request's dialect (v1.0 error details); results are rendered where they are made. */
function inDialect(dialect: Dialect, response: A2AHandlerResponse): A2AHandlerResponse {
  if (dialect === DIALECT_V03 || response.kind !== "json" || !("error" in response.body)) return response;
  return { ...response, body: { ...response.body, error: dialect.error(response.body.error) } };
}

function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.infer<T> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw InvalidParamsError.fromZod(parsed.error);
  return parsed.data;
}

/** Where a reattach resumes: after the client's `Last-Event-ID`, else after the newest event (only new ones). */
function reattachCursor(record: TaskRecord, headers: HeaderReader): number {
  const header = headers.get("last-event-id");
  if (header !== null && /^\d{1,9}$/.test(header.trim())) return Number(header.trim());
  return record.lastSeq;
}

function withHistoryLength(task: Task, historyLength: number | undefined): Task {
  if (historyLength === undefined) return task;
  return { ...task, history: historyLength === 0 ? [] : task.history.slice(-historyLength) };
}
