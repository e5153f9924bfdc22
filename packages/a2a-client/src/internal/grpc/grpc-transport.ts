import { type GrpcMethodWire, grpcMethodWire } from "@a2a-partner/a2a-core/grpc";
import {
  type ChannelCredentials,
  type ChannelOptions,
  Client,
  credentials,
  Metadata,
  type ServiceError,
} from "@grpc/grpc-js";
import { A2AHttpError, APIConnectionError, APIUserAbortError } from "../../errors.js";
import { type A2AClientOptions, CLIENT_DEFAULTS, type GrpcTransportProvider } from "../../options.js";
import { WIRE_GRPC } from "../dialect/wire-dialect.js";
import { Attempt } from "../http/attempt.js";
import { backoffDelay, decideHttpRetry } from "../http/retry-policy.js";
import { sleep as defaultSleep } from "../http/sleep.js";
import type { OpenStream, RpcCall } from "../http/transport.js";
import { clientErrorOf, failureOf } from "./grpc-errors.js";
import {
  type GrpcTarget,
  OPEN_GRPC_TRANSPORT,
  type OpenableGrpcTransportProvider,
  type RpcTransport,
} from "./grpc-transport-provider.js";
import { sseFramesOf } from "./stream-frames.js";

/** How the gRPC binding connects; every field is optional. */
export interface GrpcTransportOptions {
  /**
   * grpc-js channel credentials (client certificates, a private CA). Default: TLS with the system's roots,
   * or plain text (h2c) when the address came with a plain-http `baseUrl` or agent card URL.
   */
  credentials?: ChannelCredentials;
  /** grpc-js channel options, over the transport's own keep-alive settings. */
  channelOptions?: ChannelOptions;
}

/**
 * The gRPC binding for `A2AClient` (`{ binding: "grpc", grpc: grpcTransport() }`): A2A v1.0's
 * `A2AService` on grpc-js, with the same retries, typed errors and lossless stream resume as the HTTP
 * bindings. Streamed events carry their sequence number, so a reattach resumes after the last one seen.
 */
export function grpcTransport(options: GrpcTransportOptions = {}): GrpcTransportProvider {
  const provider: OpenableGrpcTransportProvider = {
    binding: "grpc",
    [OPEN_GRPC_TRANSPORT]: (target: GrpcTarget) => new GrpcTransport(target, options),
  };
  return provider;
}

// Messages cross grpc-js as bytes; a2a-core's wire encodes and decodes them.
const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
const same = (bytes: Buffer) => bytes;

/**
 * Keep-alive pings while a call is open: a stream that waits quietly for its task's next event (gRPC
 * sends no keep-alive messages of its own) learns of a dead connection within about 40 s, then reattaches.
 */
const KEEPALIVE: ChannelOptions = { "grpc.keepalive_time_ms": 30_000, "grpc.keepalive_timeout_ms": 10_000 };

class GrpcTransport implements RpcTransport {
  /** One channel per address (a card's interface, or `grpcAddress`), opened on its first call. */
  readonly #clients = new Map<string, Client>();
  readonly #options: A2AClientOptions;
  readonly #credentials: ChannelCredentials;
  readonly #channelOptions: ChannelOptions;

  constructor(target: GrpcTarget, grpc: GrpcTransportOptions) {
    this.#options = target.options;
    this.#credentials = grpc.credentials ?? (target.secure ? credentials.createSsl() : credentials.createInsecure());
    this.#channelOptions = { ...KEEPALIVE, ...grpc.channelOptions };
  }

  #client(address: string): Client {
    let client = this.#clients.get(address);
    if (!client) {
      client = new Client(address, this.#credentials, this.#channelOptions);
      this.#clients.set(address, client);
    }
    return client;
  }

  call(call: RpcCall): Promise<unknown> {
    const wire = wireOf(call);
    const request = asBuffer(wire.encodeRequest(call.params));
    return this.#withRetries(call, (metadata, attempt) =>
      new Promise<unknown>((resolve, reject) => {
        const pending = this.#client(call.endpoint).makeUnaryRequest(
          wire.path,
          asBuffer,
          same,
          request,
          metadata,
          (error, bytes) => {
            if (error) reject(error);
            else resolve(wire.decodeAnswer(bytes ?? Buffer.alloc(0)));
          },
        );
        attempt.signal.addEventListener("abort", () => pending.cancel(), { once: true });
      }).finally(() => attempt.dispose()),
    );
  }

  /** A streaming call; resolves once the server answered its headers (or its first message). */
  openStream(call: RpcCall): Promise<OpenStream> {
    const wire = wireOf(call);
    const request = asBuffer(wire.encodeRequest(call.params));
    return this.#withRetries(call, (metadata, attempt) => {
      const stream = this.#client(call.endpoint).makeServerStreamRequest(wire.path, asBuffer, same, request, metadata);
      attempt.signal.addEventListener("abort", () => stream.cancel(), { once: true });
      return new Promise<OpenStream>((resolve, reject) => {
        let opened = false;
        const open = () => {
          if (opened) return;
          opened = true;
          attempt.clearTimer();
          resolve({
            body: sseFramesOf(stream, wire, (error) => errorOf(error, attempt)),
            attempt,
            dialect: call.dialect ?? WIRE_GRPC,
          });
        };
        stream.once("metadata", open);
        stream.once("data", open);
        // A failure before any answer is the call's: retried or thrown by #withRetries. After, the body's.
        stream.once("error", (error: ServiceError) => {
          if (!opened) {
            attempt.dispose();
            reject(error);
          }
        });
      });
    });
  }

  async close(): Promise<void> {
    for (const client of this.#clients.values()) client.close();
    this.#clients.clear();
  }

  /** Retries as the HTTP transport does: connection failures, 408/409/429/5xx twins, Retry-After. */
  async #withRetries<T>(call: RpcCall, send: (metadata: Metadata, attempt: Attempt) => Promise<T>): Promise<T> {
    const maxRetries = nonNegativeInt(this.#options.maxRetries, CLIENT_DEFAULTS.maxRetries);
    const random = this.#options.random ?? Math.random;
    for (let retry = 0; ; retry++) {
      if (call.signal?.aborted) throw new APIUserAbortError();
      if (call.stats) call.stats.attempts = retry + 1;
      const attempt = new Attempt(call.signal);
      attempt.startTimer(call.timeoutMs ?? this.#options.timeoutMs ?? CLIENT_DEFAULTS.timeoutMs, "timeout");
      let failure: Error;
      let delayMs: number | undefined;
      try {
        return await send(await this.#metadata(call, retry), attempt);
      } catch (error) {
        attempt.dispose();
        failure = errorOf(error, attempt);
        if (failure instanceof A2AHttpError) {
          const decision = decideHttpRetry(failure.status, failure.headers, retry, this.#options.backoff ?? {}, random);
          if (!decision.retry) throw failure;
          delayMs = decision.delayMs;
        } else if (!(failure instanceof APIConnectionError)) {
          throw failure;
        }
        delayMs ??= backoffDelay(retry, this.#options.backoff, random);
      }
      if (retry >= maxRetries) throw failure;
      try {
        this.#options.onRetry?.({
          kind: "request",
          attempt: retry + 1,
          maxAttempts: maxRetries,
          delayMs,
          error: failure,
        });
      } catch {
        // A logging callback must not break the request.
      }
      await (this.#options.sleep ?? defaultSleep)(delayMs, call.signal);
      if (call.signal?.aborted) throw new APIUserAbortError();
    }
  }

  /** The call's metadata: the client's headers, the bearer token, the dialect's and the attempt's own. */
  async #metadata(call: RpcCall, retry: number): Promise<Metadata> {
    const metadata = new Metadata();
    const set = (headers: Readonly<Record<string, string>> | undefined) => {
      for (const [name, value] of Object.entries(headers ?? {})) metadata.set(name.toLowerCase(), value);
    };
    set(this.#options.headers);
    const token = typeof this.#options.token === "function" ? await this.#options.token() : this.#options.token;
    if (token) metadata.set("authorization", `Bearer ${token}`);
    set(call.dialect?.headers);
    set(retry > 0 && call.retryHeaders ? call.retryHeaders : call.headers);
    return metadata;
  }
}

function wireOf(call: RpcCall): GrpcMethodWire {
  const wire = grpcMethodWire(call.method);
  if (!wire) throw new TypeError(`${call.method} has no gRPC method in a2a.proto`);
  return wire;
}

/** A grpc-js failure as the client's error; an attempt aborted by its caller or its timer says so. */
function errorOf(error: unknown, attempt: Attempt): Error {
  if (attempt.cause !== undefined) return attempt.toError(error);
  if (isServiceError(error)) {
    // A status the server never answered (the connection broke mid-call) is a drop, whatever grpc-js names it.
    const failure = failureOf(error);
    if (failure.protocolError === undefined && error.code === 13 && /RST_STREAM|Received RST/i.test(error.details)) {
      return new APIConnectionError(`Connection error: ${error.details}`, { cause: error });
    }
    return clientErrorOf(error);
  }
  return attempt.toError(error);
}

function isServiceError(error: unknown): error is ServiceError {
  return error instanceof Error && typeof (error as Partial<ServiceError>).code === "number" && "metadata" in error;
}

function nonNegativeInt(value: number | undefined, fallback: number): number {
  return value !== undefined && Number.isInteger(value) && value >= 0 ? value : fallback;
}
