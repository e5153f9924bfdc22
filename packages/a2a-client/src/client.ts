import {
  A2A_LIMITS,
  AgentCard,
  LIST_TASKS_PAGE_SIZE,
  type MethodName,
  TaskNotCancelableError,
  verifyAgentCardSignature,
} from "@a2a-partner/a2a-core";
import { agentCardUrlFromBaseUrl, endpointFromAgentCard, endpointFromBaseUrl, parseUrl } from "./discovery.js";
import { InvalidResponseError } from "./errors.js";
import { grpcInterfaceOf, versionOfferedBy, type WireDialect, wireDialect } from "./internal/dialect/wire-dialect.js";
import { assertEndpointAllowed, assertGrpcAddressAllowed } from "./internal/endpoint-origin.js";
import { openGrpcTransport, type RpcTransport } from "./internal/grpc/grpc-transport-provider.js";
import { type CallStats, Transport } from "./internal/http/transport.js";
import { runTaskStream, type StreamConnector } from "./internal/stream/run-task-stream.js";
import { type ListedTask, ListTasksResult, Message, type Part, Task, type TaskState } from "./model.js";
import { type A2AClientOptions, CLIENT_DEFAULTS, type RequestOptions } from "./options.js";
import {
  type PushNotificationConfigInput,
  pushConfigParams,
  type TaskPushNotificationConfig,
} from "./push/push-config.js";
import { createPushConfig, deletePushConfig, getPushConfig, listPushConfigs } from "./push/push-config-calls.js";
import { TaskStream } from "./stream/task-stream.js";

/** The message of a task start, without what the client fills in (`kind`, `role`, a messageId). */
export type MessageInput = Omit<Message, "kind" | "role" | "messageId"> & { messageId?: string };

interface SendCommon {
  /**
   * The Environment (store) the task runs in: `params.metadata.storeId`. Optional: the reference server
   * then uses the workspace's default Environment (or refuses with -32602 on the field), and an agent
   * that has no Environments never needs one.
   */
  storeId?: string;
  /**
   * The idempotency key. Generated when absent, so retries and reattaches are always safe; pass your own
   * (and keep it) to come back to the same task from another process.
   */
  messageId?: string;
  /** More `params.metadata` entries (storeId, when given, wins). */
  metadata?: Record<string, unknown>;
  /**
   * Where to push the task's events from its first one on, created with the task (A2A's inline config;
   * no id: it gets the task's). A server without push notifications refuses the start with
   * PushNotificationNotSupportedError before anything runs. A retried start (same messageId) ignores it.
   */
  pushNotificationConfig?: PushNotificationConfigInput;
  signal?: AbortSignal;
  /** Time allowed until the stream's headers, per attempt. */
  timeoutMs?: number;
}

export type SendStreamingMessageInput =
  | (SendCommon & { /** The task in plain language. */ text: string; message?: undefined })
  | (SendCommon & { message: MessageInput; text?: undefined });

/** What `sendMessage` takes: a start's fields, and how long to wait for the answer. */
export type SendMessageInput = SendStreamingMessageInput & {
  /**
   * Answer at once with the task as it was created (state `submitted` or `working`) instead of waiting
   * until it ends or asks for input. Default false: the call waits (bounded by the server, then by
   * `timeoutMs`).
   */
  returnImmediately?: boolean;
  /** How many of the most recent history messages the answered task carries; 0 returns none. */
  historyLength?: number;
};

/**
 * What SendMessage answered: the task (ended, asking for input, or as it stands when the server stopped
 * waiting or `returnImmediately` was set), or the agent's message when it answered without a task.
 */
export type SendMessageResult = { kind: "task"; task: Task } | { kind: "message"; message: Message };

export interface SubscribeOptions extends RequestOptions {
  /** The SSE id of the newest event already seen: only later events are delivered. */
  lastEventId?: string | number;
}

export interface GetTaskOptions extends RequestOptions {
  /** How many of the most recent history messages to return; 0 returns none. */
  historyLength?: number;
}

/** The filters and page of `listTasks`; every one is optional (docs: the README, "Listing tasks"). */
export interface ListTasksOptions extends RequestOptions {
  /** Only the tasks of this context. */
  contextId?: string;
  /** Only the tasks in this state. */
  status?: TaskState;
  /** Only the tasks whose status changed at or after this instant (an ISO-8601 string with offset, or a Date). */
  statusTimestampAfter?: string | Date;
  /** Tasks per page, 1–100; the server's default is 50. */
  pageSize?: number;
  /** The `nextPageToken` of the previous page. */
  pageToken?: string;
  /** How many of the most recent history messages each task carries; 0 returns none. Default: all. */
  historyLength?: number;
  /** Whether each task carries its artifacts (default false: `artifacts` is left out). */
  includeArtifacts?: boolean;
}

/** One page of tasks: pass `nextPageToken` as `pageToken` for the next one; it is "" on the last page. */
export type ListTasksPage = ListTasksResult;

/**
 * Client of the A2A partner-task endpoint.
 *
 * ```ts
 * const client = new A2AClient({ baseUrl: "https://robots.example.com", token: process.env.A2A_TOKEN });
 * const stream = client.sendStreamingMessage({ text: "Restock aisle 5", storeId: "store-001" });
 * for await (const event of stream) console.log(event.type, event.eventId);
 * ```
 */
export class A2AClient {
  readonly #options: A2AClientOptions;
  readonly #transport: Transport;
  readonly #cardUrl: string;
  #endpoint: string | undefined;
  #dialect: WireDialect;
  #discovery: Promise<string> | undefined;
  /** The gRPC server's `host:port` (binding "grpc"): given, or read from the card. */
  #grpcAddress: string | undefined;
  #grpcTransport: RpcTransport | undefined;

  constructor(options: A2AClientOptions) {
    if (!options || (!options.baseUrl && !options.agentCardUrl)) {
      throw new TypeError("A2AClient needs a baseUrl or an agentCardUrl");
    }
    this.#options = { ...options };
    this.#transport = new Transport(this.#options);
    this.#endpoint = options.baseUrl ? endpointFromBaseUrl(options.baseUrl) : undefined;
    this.#cardUrl = options.agentCardUrl
      ? parseUrl(options.agentCardUrl, "agentCardUrl").toString()
      : agentCardUrlFromBaseUrl(options.baseUrl as string);
    const forced = options.protocolVersion;
    if (forced !== undefined && forced !== "auto" && forced !== "0.3" && forced !== "1.0") {
      throw new TypeError('protocolVersion must be "auto", "0.3" or "1.0"');
    }
    const binding = options.binding ?? "auto";
    if (binding !== "auto" && binding !== "jsonrpc" && binding !== "http+json" && binding !== "grpc") {
      throw new TypeError('binding must be "auto", "jsonrpc", "http+json" or "grpc"');
    }
    if ((binding === "http+json" || binding === "grpc") && forced === "0.3") {
      throw new TypeError(`binding "${binding}" speaks A2A 1.0 only; it cannot be used with protocolVersion "0.3"`);
    }
    if (binding === "grpc") {
      // Checked now, so a missing transport is a mistake at construction, not at the first call.
      if (!options.grpc) openGrpcTransport(options.grpc, { secure: false, options });
      this.#grpcAddress = options.grpcAddress;
    }
    this.#dialect = wireDialect(
      forced === "1.0" ? "1.0" : "0.3",
      binding === "http+json" || binding === "grpc" ? binding : "jsonrpc",
    );
  }

  /**
   * The binding in use: "grpc" or "http+json" when forced, "http+json" also when the card offers only
   * it; "jsonrpc" otherwise.
   */
  get binding(): "jsonrpc" | "http+json" | "grpc" {
    return this.#dialect.binding;
  }

  /**
   * The A2A version the client speaks: "1.0" when forced, or after `discover()` found the endpoint offered
   * with protocolVersion 1.0 in the card's `supportedInterfaces`; "0.3" otherwise.
   */
  get protocolVersion(): "0.3" | "1.0" {
    return this.#dialect.version;
  }

  /**
   * The endpoint in use (JSON-RPC's, the HTTP+JSON binding's base, or the gRPC server's `host:port`);
   * undefined until discovery when only `agentCardUrl` was given (or, for gRPC, no `grpcAddress`).
   */
  get endpoint(): string | undefined {
    return this.#dialect.binding === "grpc" ? this.#grpcAddress : this.#endpoint;
  }

  /**
   * Reads the agent card and from then on uses the endpoint it declares. An endpoint on another origin, or
   * plain http from an https card, is refused with UntrustedEndpointError (see `allowCrossOriginEndpoint`
   * and `allowInsecureEndpoint`),
   * and the endpoint in use stays as it was.
   */
  async discover(options: RequestOptions = {}): Promise<AgentCard> {
    const value = await this.#transport.getJson(this.#cardUrl, options);
    const keys = this.#options.agentCardKeys;
    // Checked on the card as served (before any parsing drops a field the signature covers).
    if (keys && !(await verifyAgentCardSignature(value as Record<string, unknown>, keys))) {
      throw new InvalidResponseError(
        `The agent card at ${this.#cardUrl} carries no signature that verifies with the given agentCardKeys`,
      );
    }
    if (this.#options.binding === "grpc") return this.#discoverGrpc(value);
    // A forced v0.3 cannot speak HTTP+JSON, so it never picks it.
    const choice = this.#options.protocolVersion === "0.3" ? "jsonrpc" : (this.#options.binding ?? "auto");
    const { card, endpoint, binding } = endpointFromAgentCard(value, this.#cardUrl, choice);
    assertEndpointAllowed(endpoint, this.#cardUrl, {
      ...(this.#options.baseUrl ? { baseUrl: this.#options.baseUrl } : {}),
      ...(this.#options.allowCrossOriginEndpoint ? { allowCrossOrigin: true } : {}),
      ...(this.#options.allowInsecureEndpoint ? { allowInsecure: true } : {}),
    });
    this.#endpoint = endpoint;
    const forced = this.#options.protocolVersion;
    if (binding === "http+json") this.#dialect = wireDialect("1.0", "http+json");
    else if (forced === undefined || forced === "auto") {
      this.#dialect = wireDialect(versionOfferedBy(card, endpoint, this.#cardUrl));
    } else this.#dialect = wireDialect(forced);
    return card;
  }

  /**
   * Starts a task and follows its stream. Returns at once; the handle yields `task`, `update`s and
   * `finished` (never `final`), each exactly once even when the connection drops and the client
   * reattaches. Retrying is safe: the messageId (generated when not given) makes the server return the
   * same task instead of dispatching robots again.
   */
  sendStreamingMessage(input: SendStreamingMessageInput): TaskStream {
    const params = this.#startParams(input);
    const messageId = (params.message as { messageId: string }).messageId;
    const connector: StreamConnector = {
      // A resend asks for every event from the start: the first attempt may have created the task already.
      start: async (retry, signal) =>
        this.#rpc(this.#dialect).openStream({
          endpoint: await this.#resolveEndpoint(signal),
          method: "SendStreamingMessage",
          params: this.#dialect.params("SendStreamingMessage", params),
          dialect: this.#dialect,
          ...(retry ? { headers: { "last-event-id": "0" } } : {}),
          retryHeaders: { "last-event-id": "0" },
          signal,
          ...timeout(input.timeoutMs),
        }),
      subscribe: (taskId, lastEventId, signal) => this.#subscribeRequest(taskId, lastEventId, signal, input.timeoutMs),
    };
    return new TaskStream(
      ({ signal, onEvent }) => runTaskStream({ ...this.#streamSettings(), connector, signal, onEvent }),
      { messageId, ...(input.signal ? { signal: input.signal } : {}) },
    );
  }

  /**
   * Sends a message and waits for the answer (A2A's SendMessage): the task once it has ended or asks for
   * input, or the agent's message when it answers without a task; check `kind`. Retrying is safe, as for
   * `sendStreamingMessage`: the messageId makes the server answer with the same task. Waiting is bounded by
   * the server (the task as it stands past its limit) and by `timeoutMs` per attempt. A server that does
   * not serve SendMessage (the reference server, by its contract) answers UnsupportedOperationError.
   */
  async sendMessage(input: SendMessageInput): Promise<SendMessageResult> {
    const { returnImmediately, historyLength } = input ?? {};
    if (historyLength !== undefined && !(Number.isInteger(historyLength) && historyLength >= 0)) {
      throw new TypeError("historyLength must be a non-negative integer");
    }
    const params = this.#startParams(input);
    const endpoint = await this.#resolveEndpoint(input.signal);
    // The answer is read in the dialect the request went out in, whatever a concurrent discover() decides.
    const dialect = this.#dialect;
    const configuration = {
      ...(params.configuration as Record<string, unknown> | undefined),
      ...(returnImmediately ? dialect.returnImmediately() : {}),
      ...(historyLength !== undefined ? { historyLength } : {}),
    };
    const result = await this.#rpc(dialect).call({
      endpoint,
      method: "SendMessage",
      params: dialect.params("SendMessage", {
        ...params,
        ...(Object.keys(configuration).length > 0 ? { configuration } : {}),
      }),
      dialect,
      ...requestOptions(input),
    });
    const answer = dialect.sendAnswer(result);
    if (answer.kind === "task") return { kind: "task", task: parseTask(answer.task) };
    const parsed = Message.safeParse(answer.message);
    if (!parsed.success) throw new InvalidResponseError("The server's result is not a Message");
    return { kind: "message", message: parsed.data };
  }

  /**
   * Follows an existing task. With `lastEventId`, events up to it are not delivered again (the server
   * replays the rest); without it, the stream starts with the current snapshot and then new events.
   */
  subscribeToTask(taskId: string, options: SubscribeOptions = {}): TaskStream {
    requireString(taskId, "taskId");
    const lastEventId = options.lastEventId === undefined ? undefined : String(options.lastEventId);
    if (lastEventId !== undefined && !/^\d{1,15}$/.test(lastEventId)) {
      throw new TypeError("lastEventId must be the non-negative integer id of an event");
    }
    const connector: StreamConnector = {
      subscribe: (id, last, signal) => this.#subscribeRequest(id, last, signal, options.timeoutMs),
    };
    return new TaskStream(
      ({ signal, onEvent }) =>
        runTaskStream({
          ...this.#streamSettings(),
          connector,
          taskId,
          ...(lastEventId !== undefined ? { lastEventId } : {}),
          signal,
          onEvent,
        }),
      { taskId, ...(options.signal ? { signal: options.signal } : {}) },
    );
  }

  /** The task's current state. */
  async getTask(taskId: string, options: GetTaskOptions = {}): Promise<Task> {
    requireString(taskId, "taskId");
    const { historyLength } = options;
    if (historyLength !== undefined && !(Number.isInteger(historyLength) && historyLength >= 0)) {
      throw new TypeError("historyLength must be a non-negative integer");
    }
    const endpoint = await this.#resolveEndpoint(options.signal);
    // The answer is read in the dialect the request went out in, whatever a concurrent discover() decides.
    const dialect = this.#dialect;
    const result = await this.#rpc(dialect).call({
      endpoint,
      method: "GetTask",
      params: historyLength === undefined ? { id: taskId } : { id: taskId, historyLength },
      dialect,
      ...requestOptions(options),
    });
    return parseTask(dialect.task(result));
  }

  /**
   * One page of the caller's tasks, newest status change first, with the filters given. A read: retried
   * like getTask. Errors are the same typed ones (an unknown `pageToken` is an InvalidParamsError).
   */
  async listTasks(options: ListTasksOptions = {}): Promise<ListTasksPage> {
    const params = listTasksParams(options);
    const endpoint = await this.#resolveEndpoint(options.signal);
    const dialect = this.#dialect;
    const result = await this.#rpc(dialect).call({
      endpoint,
      method: "ListTasks",
      params: dialect.params("ListTasks", params),
      dialect,
      ...requestOptions(options),
    });
    const parsed = ListTasksResult.safeParse(dialect.list(result));
    if (!parsed.success) throw new InvalidResponseError("The server's result is not a ListTasks page");
    return parsed.data;
  }

  /**
   * Every task matching the filters, page after page (`pageSize` per request), as one async iteration.
   * Stops after the page whose `nextPageToken` is "". Breaking out of the loop requests no further page.
   */
  async *listAllTasks(options: Omit<ListTasksOptions, "pageToken"> = {}): AsyncGenerator<ListedTask, void, undefined> {
    let pageToken: string | undefined;
    for (;;) {
      const page = await this.listTasks({ ...options, ...(pageToken ? { pageToken } : {}) });
      yield* page.tasks;
      if (page.nextPageToken === "") return;
      // A server that hands back the token it was given would make this loop forever.
      if (page.nextPageToken === pageToken) {
        throw new InvalidResponseError("The server returned the same nextPageToken twice");
      }
      pageToken = page.nextPageToken;
    }
  }

  /**
   * Cancels a task; resolves with it in state `canceled`. Throws TaskNotCancelableError (with
   * `data.state`) if it had already ended. Safe to retry: when an earlier attempt of this very call went
   * through, the task found canceled is returned.
   */
  async cancelTask(taskId: string, options: RequestOptions = {}): Promise<Task> {
    requireString(taskId, "taskId");
    const stats: CallStats = { attempts: 0 };
    try {
      const endpoint = await this.#resolveEndpoint(options.signal);
      const dialect = this.#dialect;
      const result = await this.#rpc(dialect).call({
        endpoint,
        method: "CancelTask",
        params: { id: taskId },
        stats,
        dialect,
        ...requestOptions(options),
      });
      return parseTask(dialect.task(result));
    } catch (error) {
      const state = (error as TaskNotCancelableError).data as { state?: unknown } | undefined;
      if (error instanceof TaskNotCancelableError && stats.attempts > 1 && state?.state === "canceled") {
        return this.getTask(taskId, options);
      }
      throw error;
    }
  }

  /**
   * Creates a push config of the task, or replaces the task's config with the same id (without an id: the
   * task's own, so a retried create replaces). From then on every event of the task is POSTed to
   * `config.url`, signed (see `verifyPushNotification`). Throws PushNotificationNotSupportedError when the
   * server does not send push notifications, InvalidParamsError for a url it refuses (a private address),
   * TaskNotFoundError for a task not in your workspace.
   */
  createTaskPushNotificationConfig(
    taskId: string,
    config: PushNotificationConfigInput,
    options: RequestOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    return createPushConfig(this.#dialectCall, taskId, config, options);
  }

  /** One push config of the task (TaskNotFoundError when the task or the config does not exist). */
  getTaskPushNotificationConfig(
    taskId: string,
    configId: string,
    options: RequestOptions = {},
  ): Promise<TaskPushNotificationConfig> {
    return getPushConfig(this.#dialectCall, taskId, configId, options);
  }

  /** Every push config of the task, oldest first. */
  listTaskPushNotificationConfigs(taskId: string, options: RequestOptions = {}): Promise<TaskPushNotificationConfig[]> {
    return listPushConfigs(this.#dialectCall, taskId, options);
  }

  /** Deletes a push config; its undelivered notifications are dropped. Idempotent: deleting it twice is fine. */
  deleteTaskPushNotificationConfig(taskId: string, configId: string, options: RequestOptions = {}): Promise<void> {
    return deletePushConfig(this.#dialectCall, taskId, configId, options);
  }

  /** Releases the keep-alive connections the client opened. The client is not usable afterwards. */
  async close(): Promise<void> {
    await Promise.all([this.#transport.close(), this.#grpcTransport?.close()]);
  }

  /** The card's gRPC interface becomes the address in use (unless `grpcAddress` named one). */
  #discoverGrpc(value: unknown): AgentCard {
    const parsed = AgentCard.safeParse(value);
    if (!parsed.success)
      throw new InvalidResponseError(`The agent card at ${this.#cardUrl} is not a valid A2A agent card`);
    const card = parsed.data;
    if (this.#options.grpcAddress === undefined) {
      const address = grpcInterfaceOf(card);
      if (!address)
        throw new InvalidResponseError(`The agent card at ${this.#cardUrl} declares no gRPC interface of A2A 1.0`);
      assertGrpcAddressAllowed(address, this.#cardUrl, {
        ...(this.#options.baseUrl ? { baseUrl: this.#options.baseUrl } : {}),
        ...(this.#options.allowCrossOriginEndpoint ? { allowCrossOrigin: true } : {}),
      });
      this.#grpcAddress = address;
    }
    return card;
  }

  /** The transport of the binding a call goes out in: gRPC's (opened on first use), or HTTP's. */
  #rpc(dialect: WireDialect): RpcTransport {
    if (dialect.binding !== "grpc") return this.#transport;
    this.#grpcTransport ??= openGrpcTransport(this.#options.grpc, {
      // TLS unless the address came with a plain-http URL (the base URL, else the card's).
      secure: new URL(this.#options.baseUrl ?? this.#cardUrl).protocol !== "http:",
      options: this.#options,
    });
    return this.#grpcTransport;
  }

  /** One call, its v0.3 params converted by the dialect in use; the answer is read in that same dialect. */
  readonly #dialectCall = async (method: MethodName, params: Record<string, unknown>, options: RequestOptions) => {
    const endpoint = await this.#resolveEndpoint(options.signal);
    const dialect = this.#dialect;
    const result = await this.#rpc(dialect).call({
      endpoint,
      method,
      params: dialect.params(method, params),
      dialect,
      ...requestOptions(options),
    });
    return { result, dialect };
  };

  #startParams(input: SendStreamingMessageInput): Record<string, unknown> {
    if (!input || typeof input !== "object") throw new TypeError("a start needs { text } or { message }");
    if (input.storeId !== undefined) requireString(input.storeId, "storeId");
    let parts: Part[];
    let rest: Partial<MessageInput> = {};
    if (typeof input.text === "string") {
      if (input.text.trim() === "") throw new TypeError("text must not be empty");
      parts = [{ kind: "text", text: input.text }];
    } else if (input.message && Array.isArray(input.message.parts) && input.message.parts.length > 0) {
      ({ parts, ...rest } = input.message);
    } else {
      throw new TypeError("a start needs a non-empty text or a message with parts");
    }
    const messageId = input.messageId ?? rest.messageId ?? this.#newId();
    requireString(messageId, "messageId");
    if (messageId.length > A2A_LIMITS.idLength) {
      throw new TypeError(`messageId must be at most ${A2A_LIMITS.idLength} characters`);
    }
    const push = input.pushNotificationConfig;
    return {
      message: { ...rest, kind: "message", role: "user", messageId, parts },
      ...(input.storeId === undefined && input.metadata === undefined
        ? {}
        : { metadata: { ...input.metadata, ...(input.storeId === undefined ? {} : { storeId: input.storeId }) } }),
      ...(push !== undefined
        ? { configuration: { pushNotificationConfig: pushConfigParams(push, "pushNotificationConfig") } }
        : {}),
    };
  }

  #subscribeRequest(taskId: string, lastEventId: string | undefined, signal: AbortSignal, timeoutMs?: number) {
    return this.#resolveEndpoint(signal).then((endpoint) =>
      this.#rpc(this.#dialect).openStream({
        endpoint,
        method: "SubscribeToTask",
        params: { id: taskId },
        dialect: this.#dialect,
        ...(lastEventId !== undefined ? { headers: { "last-event-id": lastEventId } } : {}),
        signal,
        ...timeout(timeoutMs),
      }),
    );
  }

  #streamSettings() {
    const o = this.#options;
    return {
      transport: this.#transport,
      maxResumeAttempts: nonNegativeInt(o.maxResumeAttempts, CLIENT_DEFAULTS.maxResumeAttempts),
      idleTimeoutMs: o.streamIdleTimeoutMs ?? CLIENT_DEFAULTS.streamIdleTimeoutMs,
      ...(o.maxEventBytes !== undefined ? { maxEventBytes: o.maxEventBytes } : {}),
    };
  }

  /** The endpoint; discovers it from the agent card first when only `agentCardUrl` was given. */
  async #resolveEndpoint(signal?: AbortSignal): Promise<string> {
    if (this.#dialect.binding === "grpc") {
      if (this.#grpcAddress) return this.#grpcAddress;
      await this.discover(signal ? { signal } : {});
      return this.#grpcAddress as string;
    }
    if (this.#endpoint) return this.#endpoint;
    this.#discovery ??= this.discover(signal ? { signal } : {}).then(
      () => this.#endpoint as string,
      (error: unknown) => {
        // A failed discovery is tried again by the next call.
        this.#discovery = undefined;
        throw error;
      },
    );
    return this.#discovery;
  }

  #newId(): string {
    return this.#options.generateId?.() ?? crypto.randomUUID();
  }
}

function parseTask(value: unknown): Task {
  const parsed = Task.safeParse(value);
  if (!parsed.success) throw new InvalidResponseError("The server's result is not a Task");
  return parsed.data;
}

function listTasksParams(options: ListTasksOptions): Record<string, unknown> {
  if (!options || typeof options !== "object") throw new TypeError("listTasks takes an options object");
  const { contextId, status, statusTimestampAfter, pageSize, pageToken, historyLength, includeArtifacts } = options;
  const { min, max } = LIST_TASKS_PAGE_SIZE;
  if (pageSize !== undefined && !(Number.isInteger(pageSize) && pageSize >= min && pageSize <= max)) {
    throw new TypeError(`pageSize must be an integer between ${min} and ${max}`);
  }
  if (historyLength !== undefined && !(Number.isInteger(historyLength) && historyLength >= 0)) {
    throw new TypeError("historyLength must be a non-negative integer");
  }
  let after = statusTimestampAfter;
  if (after instanceof Date) {
    if (Number.isNaN(after.getTime())) throw new TypeError("statusTimestampAfter must be a valid Date");
    after = after.toISOString();
  }
  return {
    ...(contextId !== undefined ? { contextId } : {}),
    ...(status !== undefined ? { status } : {}),
    ...(after !== undefined ? { statusTimestampAfter: after } : {}),
    ...(pageSize !== undefined ? { pageSize } : {}),
    ...(pageToken !== undefined && pageToken !== "" ? { pageToken } : {}),
    ...(historyLength !== undefined ? { historyLength } : {}),
    ...(includeArtifacts !== undefined ? { includeArtifacts } : {}),
  };
}

function requireString(value: unknown, name: string): asserts value is string {
  if (typeof value !== "string" || value.length === 0) throw new TypeError(`${name} must be a non-empty string`);
}

function requestOptions(options: RequestOptions): { signal?: AbortSignal; timeoutMs?: number } {
  return { ...(options.signal ? { signal: options.signal } : {}), ...timeout(options.timeoutMs) };
}

function timeout(timeoutMs: number | undefined): { timeoutMs?: number } {
  return timeoutMs === undefined ? {} : { timeoutMs };
}

function nonNegativeInt(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : fallback;
}
