import { fromJsonRpcError } from "@a2a-partner/a2a-core";
import { aliasOf, type MethodName } from "@a2a-partner/a2a-core/protocol";
import type { Span } from "@opentelemetry/api";
import { A2AHttpError, APIConnectionError, APIUserAbortError, InvalidResponseError } from "../../errors.js";
import { type A2AClientOptions, CLIENT_DEFAULTS, type FetchLike, type RetryInfo } from "../../options.js";
import { ClientTelemetry } from "../../telemetry/client-telemetry.js";
import { WIRE_V03, type WireDialect } from "../dialect/wire-dialect.js";
import { jsonRpcResultOf } from "../json-rpc-result.js";
import { Attempt } from "./attempt.js";
import { httpJsonErrorOf, httpJsonRequest } from "./http-json-route.js";
import { MAX_ERROR_BODY_BYTES, MAX_RESULT_BODY_BYTES, parseJsonRpcErrorBody, readBodyText } from "./read-body.js";
import { backoffDelay, decideHttpRetry } from "./retry-policy.js";
import { sleep as defaultSleep } from "./sleep.js";

/** One JSON-RPC call as the transport sends it. */
export interface RpcCall {
  endpoint: string;
  method: MethodName;
  params: Record<string, unknown>;
  /** Extra headers of the first attempt (e.g. `Last-Event-ID`). */
  headers?: Record<string, string>;
  /** Headers of the retries instead of `headers`, when they differ. */
  retryHeaders?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  stats?: CallStats;
  /** The A2A dialect spoken: its headers go out, its errors are read back. Default v0.3. */
  dialect?: WireDialect;
}

/** Counts the HTTP attempts a call took (a retried cancel needs to know). */
export interface CallStats {
  attempts: number;
}

interface HttpRequest {
  url: string;
  method: "GET" | "POST" | "DELETE";
  accept: string;
  /** Whether to send the bearer token (not to a public document that may live elsewhere). */
  auth: boolean;
  body?: string;
  headers?: Record<string, string>;
  retryHeaders?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
  stats?: CallStats;
  /** The call's span (with an OpenTelemetry SDK): every attempt sends its context as `traceparent`. */
  span?: Span | undefined;
  dialect?: WireDialect;
}

/** An SSE response whose headers have arrived; the caller reads `body` and disposes `attempt`. */
export interface OpenStream {
  body: ReadableStream<Uint8Array>;
  attempt: Attempt;
  /** The dialect the request was sent in, and so the one its frames are read in. */
  dialect: WireDialect;
}

/**
 * Sends JSON-RPC calls over fetch: headers and auth, the keep-alive dispatcher, timeouts, the mapping of
 * failures to typed errors, and openai-node style retries of answers that never became usable.
 */
export class Transport {
  readonly #options: A2AClientOptions;
  #ownedDispatcher: Promise<{ close(): Promise<void> } | undefined> | undefined;
  readonly #telemetry = new ClientTelemetry();

  constructor(options: A2AClientOptions) {
    this.#options = options;
  }

  get maxRetries(): number {
    return nonNegativeInt(this.#options.maxRetries, CLIENT_DEFAULTS.maxRetries);
  }

  /** A JSON (non-streaming) call; resolves with the JSON-RPC `result`. */
  async call(call: RpcCall): Promise<unknown> {
    return this.#traced(this.#rpcRequest(call, "application/json"), (request) => this.#callOnce(request));
  }

  #callOnce(request: HttpRequest): Promise<unknown> {
    return this.#withRetries(request, async (response, attempt) => {
      try {
        const text = await readBodyText(response.body, MAX_RESULT_BODY_BYTES);
        const dialect = dialectOf(request);
        // An HTTP+JSON answer may have no body (a DELETE's 204, or 200 with an empty google.protobuf.Empty).
        if (dialect.binding === "http+json") return text === "" ? undefined : parseJson(text, "The server's answer");
        return jsonRpcResultOf(text, "The server's answer", dialect.error);
      } catch (error) {
        throw attempt.toError(error);
      } finally {
        attempt.dispose();
      }
    });
  }

  /** A streaming call; resolves once the SSE headers are in. Errors before the stream are thrown typed. */
  async openStream(call: RpcCall): Promise<OpenStream> {
    return this.#traced(this.#rpcRequest(call, "text/event-stream"), (request) => this.#openStreamOnce(request));
  }

  #openStreamOnce(request: HttpRequest): Promise<OpenStream> {
    return this.#withRetries(request, async (response, attempt) => {
      const type = response.headers.get("content-type") ?? "";
      if (/^text\/event-stream\b/i.test(type) && response.body) {
        attempt.clearTimer();
        return { body: response.body, attempt, dialect: dialectOf(request) };
      }
      try {
        // Errors before a stream starts come as a plain JSON-RPC response (docs/contract.md, Events).
        const text = await readBodyText(response.body, MAX_ERROR_BODY_BYTES, true);
        const dialect = dialectOf(request);
        if (/json/i.test(type) && dialect.binding === "jsonrpc")
          jsonRpcResultOf(text, "The server's answer", dialect.error);
        throw new InvalidResponseError(
          `Expected an event stream, got ${type ? `"${type.slice(0, 100)}"` : "no content type"}`,
        );
      } catch (error) {
        throw attempt.toError(error);
      } finally {
        attempt.dispose();
      }
    });
  }

  /** A plain GET of a public JSON document (the agent card): no token is sent. */
  async getJson(url: string, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<unknown> {
    const request: HttpRequest = { url, method: "GET", accept: "application/json", auth: false, ...options };
    return this.#withRetries(request, async (response, attempt) => {
      try {
        const text = await readBodyText(response.body, MAX_RESULT_BODY_BYTES);
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new InvalidResponseError(`The document at ${url} is not valid JSON`);
        }
      } catch (error) {
        throw attempt.toError(error);
      } finally {
        attempt.dispose();
      }
    });
  }

  /** Waits before a retry; aborting `signal` ends the wait with APIUserAbortError. */
  async wait(ms: number, signal?: AbortSignal): Promise<void> {
    await (this.#options.sleep ?? defaultSleep)(ms, signal);
    // An injected sleep may not watch the signal itself.
    if (signal?.aborted) throw new APIUserAbortError();
  }

  backoff(retryIndex: number): number {
    return backoffDelay(retryIndex, this.#options.backoff, this.#options.random);
  }

  notifyRetry(info: RetryInfo): void {
    try {
      this.#options.onRetry?.(info);
    } catch {
      // A logging callback must not break the request.
    }
  }

  async close(): Promise<void> {
    const owned = await this.#ownedDispatcher?.catch(() => undefined);
    this.#ownedDispatcher = undefined;
    await owned?.close();
  }

  /** Runs a JSON-RPC call inside its span (a no-op without an OpenTelemetry SDK). */
  async #traced<T>(request: HttpRequest, send: (request: HttpRequest) => Promise<T>): Promise<T> {
    try {
      const result = await send(request);
      this.#telemetry.endCall(request.span);
      return result;
    } catch (error) {
      this.#telemetry.endCall(request.span, error);
      throw error;
    }
  }

  #rpcRequest(call: RpcCall, accept: string): HttpRequest {
    const rest =
      call.dialect?.binding === "http+json" ? httpJsonRequest(call.endpoint, call.method, call.params) : undefined;
    const wireMethod = this.#options.methodNames === "alias" ? (aliasOf(call.method) ?? call.method) : call.method;
    return {
      span: this.#telemetry.startCall(call.method, rest ? call.method : wireMethod),
      url: rest ? rest.url : call.endpoint,
      method: rest ? rest.verb : "POST",
      accept,
      auth: true,
      // One id per call: retries of it are the same request.
      ...(rest
        ? rest.body === undefined
          ? {}
          : { body: rest.body }
        : { body: JSON.stringify({ jsonrpc: "2.0", id: this.#newId(), method: wireMethod, params: call.params }) }),
      ...(call.headers ? { headers: call.headers } : {}),
      ...(call.retryHeaders ? { retryHeaders: call.retryHeaders } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
      ...(call.timeoutMs !== undefined ? { timeoutMs: call.timeoutMs } : {}),
      ...(call.stats ? { stats: call.stats } : {}),
      ...(call.dialect ? { dialect: call.dialect } : {}),
    };
  }

  async #withRetries<T>(call: HttpRequest, onAnswer: (response: Response, attempt: Attempt) => Promise<T>): Promise<T> {
    const maxRetries = this.maxRetries;
    const random = this.#options.random ?? Math.random;
    for (let retry = 0; ; retry++) {
      if (call.signal?.aborted) throw new APIUserAbortError();
      const extra = retry > 0 && call.retryHeaders ? call.retryHeaders : call.headers;
      const attempt = new Attempt(call.signal);
      attempt.startTimer(call.timeoutMs ?? this.#options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs, "timeout");
      let failure: Error;
      let delayMs: number | undefined;
      try {
        if (call.stats) call.stats.attempts = retry + 1;
        const response = await this.#send(call, extra, attempt);
        if (response.ok) return await onAnswer(response, attempt);
        const text = await readBodyText(response.body, MAX_ERROR_BODY_BYTES, true).catch(() => "");
        attempt.dispose();
        const dialect = dialectOf(call);
        if (dialect.binding === "http+json") {
          const protocolError = httpJsonErrorOf(text);
          // HTTP+JSON answers a protocol error (unknown task, bad params …) with 400 or 404: the same typed
          // error JSON-RPC gives, and as final. Refusals (401, 429, 5xx …) stay HTTP errors, retried alike.
          if (protocolError && (response.status === 400 || response.status === 404)) {
            throw fromJsonRpcError(protocolError);
          }
          failure = A2AHttpError.from(response.status, response.headers, protocolError);
        } else {
          const rpcError = parseJsonRpcErrorBody(text);
          failure = A2AHttpError.from(response.status, response.headers, rpcError && dialect.error(rpcError));
        }
        const decision = decideHttpRetry(response.status, response.headers, retry, this.#options.backoff ?? {}, random);
        if (!decision.retry) throw failure;
        delayMs = decision.delayMs;
      } catch (error) {
        attempt.dispose();
        failure = attempt.toError(error);
        // Only failures without a usable answer are retried: a JSON-RPC error or a malformed answer is final.
        if (!(failure instanceof APIConnectionError) && !(failure instanceof A2AHttpError && delayMs !== undefined)) {
          throw failure;
        }
        delayMs ??= this.backoff(retry);
      }
      if (retry >= maxRetries) throw failure;
      this.notifyRetry({ kind: "request", attempt: retry + 1, maxAttempts: maxRetries, delayMs, error: failure });
      await this.wait(delayMs, call.signal);
    }
  }

  async #send(call: HttpRequest, extra: Record<string, string> | undefined, attempt: Attempt): Promise<Response> {
    const headers = new Headers(this.#options.headers);
    headers.set("accept", call.accept);
    if (call.body !== undefined) headers.set("content-type", "application/json");
    if (call.auth) {
      const token = await this.#token();
      if (token) headers.set("authorization", `Bearer ${token}`);
    }
    for (const [name, value] of Object.entries(call.dialect?.headers ?? {})) headers.set(name, value);
    for (const [name, value] of Object.entries(extra ?? {})) headers.set(name, value);
    this.#telemetry.inject(call.span, headers);
    const init: RequestInit & { dispatcher?: object } = { method: call.method, headers, signal: attempt.signal };
    if (call.body !== undefined) init.body = call.body;
    const dispatcher = await this.#dispatcher();
    if (dispatcher) init.dispatcher = dispatcher;
    const fetchImpl: FetchLike = this.#options.fetch ?? globalThis.fetch;
    return fetchImpl(call.url, init);
  }

  async #token(): Promise<string | undefined> {
    const token = this.#options.token;
    return typeof token === "function" ? await token() : token;
  }

  #newId(): string {
    return this.#options.generateId?.() ?? crypto.randomUUID();
  }

  async #dispatcher(): Promise<object | undefined> {
    const option = this.#options.dispatcher;
    if (option === false) return undefined;
    if (option) return option;
    // A custom fetch brings its own connection handling; outside Node there is no undici to give it.
    if (this.#options.fetch || !isNode()) return undefined;
    this.#ownedDispatcher ??= createKeepAliveDispatcher().catch(() => undefined);
    return await this.#ownedDispatcher;
  }
}

/** Parses a JSON-RPC response body: the result, or the typed protocol error it carries. */
/**
 * A keep-alive undici Agent for the global fetch. Node's fetch runs on its bundled undici, whose
 * dispatcher contract is older than this package's undici; `Dispatcher1Wrapper` bridges the two.
 */
async function createKeepAliveDispatcher(): Promise<{ close(): Promise<void> }> {
  const { Agent, Dispatcher1Wrapper } = await import("undici");
  return new Dispatcher1Wrapper(new Agent({ keepAliveTimeout: 30_000, keepAliveMaxTimeout: 600_000 }));
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new InvalidResponseError(`${what} is not valid JSON`);
  }
}

function dialectOf(request: HttpRequest): WireDialect {
  return request.dialect ?? WIRE_V03;
}

function isNode(): boolean {
  return typeof process !== "undefined" && typeof process.versions?.node === "string";
}

function nonNegativeInt(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : fallback;
}
