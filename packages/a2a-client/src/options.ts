import type { AgentCardKeySet } from "@a2a-partner/a2a-core";
import type { BackoffOptions } from "./internal/http/retry-policy.js";

/** A fetch implementation: the global one by default; msw, undici's or a test double otherwise. */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * What `grpcTransport()` of `@a2a-partner/a2a-client/grpc` returns, for the client's `grpc` option. Opaque
 * on purpose: the main entry never loads `@grpc/grpc-js`; the transport comes in through this value.
 */
export interface GrpcTransportProvider {
  /** Always "grpc": the binding the provider's transport speaks. */
  readonly binding: "grpc";
}

/** A bearer token, or a function that returns the current one (called before every request). */
export type TokenSource = string | (() => string | Promise<string>);

/** Told before the client waits to retry a request or to reattach to a dropped stream. */
export interface RetryInfo {
  /** `request`: an HTTP attempt failed before any answer could be used; `resume`: a stream dropped. */
  kind: "request" | "resume";
  /** 1 for the first retry. */
  attempt: number;
  /** The most retries of this kind (`maxRetries` or `maxResumeAttempts`). */
  maxAttempts: number;
  delayMs: number;
  /** What went wrong (an APIConnectionError, APITimeoutError or A2AHttpError). */
  error: Error;
}

export interface A2AClientOptions {
  /** The server's base URL, e.g. `https://robots.example.com`; the endpoint is `<baseUrl>/api/v1/a2a`. */
  baseUrl?: string;
  /**
   * Where to read the agent card. Default `<baseUrl>/.well-known/agent-card.json`. Given without
   * `baseUrl`, the endpoint is taken from the card (`discover()` runs before the first call).
   */
  agentCardUrl?: string;
  /**
   * Follow an agent card whose endpoint is on another origin than the card (and than `baseUrl`). Default
   * false: `discover()` throws UntrustedEndpointError rather than send the token to a host the caller did
   * not name. An https card that points at plain http also needs `allowInsecureEndpoint`.
   */
  allowCrossOriginEndpoint?: boolean;
  /**
   * Follow an https agent card whose endpoint is plain http (the token would travel unencrypted).
   * Default false: refused with UntrustedEndpointError. A separate opt-in from `allowCrossOriginEndpoint`,
   * so trusting another host never silently means trusting clear text.
   */
  allowInsecureEndpoint?: boolean;
  /** Partner API token, sent as `Authorization: Bearer <token>`. */
  token?: TokenSource;
  /** Default: the global `fetch` (looked up at call time, so msw and other interceptors see every call). */
  fetch?: FetchLike;
  /**
   * An undici Dispatcher passed to fetch as `dispatcher`. Default on Node with the global fetch: a
   * keep-alive undici `Agent` owned by the client (`close()` releases it). `false`: none.
   */
  dispatcher?: object | false;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /**
   * The A2A version to speak. `auto` (default): v1.0 once `discover()` (run by itself when only
   * `agentCardUrl` is given) finds the endpoint in the card's `supportedInterfaces` with protocolVersion
   * 1.0, v0.3 until then and otherwise. `1.0` or `0.3` force one. v1.0 requests carry `A2A-Version: 1.0`;
   * the results are the same types in both (docs/interop.md).
   */
  protocolVersion?: "auto" | "0.3" | "1.0";
  /**
   * The binding to speak. `auto` (default): JSON-RPC when the agent card offers it (and before any card
   * was read), else the card's HTTP+JSON interface. `jsonrpc` or `http+json` force one; HTTP+JSON is
   * A2A v1.0 only, and without a card its base is the endpoint (`<baseUrl>/api/v1/a2a`). `grpc`: A2A
   * v1.0's gRPC binding, through the `grpc` option (from `@a2a-partner/a2a-client/grpc`), at `grpcAddress`
   * or the card's GRPC interface. Streams resume and requests retry the same way over all three.
   */
  binding?: "auto" | "jsonrpc" | "http+json" | "grpc";
  /**
   * The gRPC binding's transport: `grpcTransport()` of `@a2a-partner/a2a-client/grpc` (an entry of its
   * own, so that `@grpc/grpc-js` is loaded only by those who use it). Needed for `binding: "grpc"`.
   */
  grpc?: GrpcTransportProvider;
  /**
   * The gRPC server's `host:port` (as a card's GRPC interface writes it). Default: the card's GRPC
   * interface, read by `discover()` before the first call.
   */
  grpcAddress?: string;
  /**
   * The agent's public keys (a JWKS, as its `/.well-known/jwks.json` serves them, obtained out of band).
   * Given them, `discover()` accepts a card only when one of its signatures (A2A §8.4) verifies with the
   * key of its `kid`, and throws InvalidResponseError otherwise. Default: cards are not checked.
   */
  agentCardKeys?: AgentCardKeySet;
  /** `current` (default): `SendStreamingMessage`, …; `alias`: `message/stream`, … for older servers. */
  methodNames?: "current" | "alias";
  /** Retries of one request on connection errors, 408, 409, 429 and 5xx. Default 2. */
  maxRetries?: number;
  /** Reattach attempts after a stream dropped without progress in between. Default 5. */
  maxResumeAttempts?: number;
  /** Time allowed for an answer (for a stream: until its headers). Default 60 s. */
  timeoutMs?: number;
  /** A stream with no byte (event or keep-alive comment) for this long is treated as dropped. Default 45 s. */
  streamIdleTimeoutMs?: number;
  /** Exponential backoff of retries and reattaches. Default 0.5 s doubling, capped at 8 s, with jitter. */
  backoff?: BackoffOptions;
  /** Largest accepted SSE event in bytes. Default 4 MiB. */
  maxEventBytes?: number;
  /** Called before every wait for a retry or a reattach (logging, progress displays). */
  onRetry?: (info: RetryInfo) => void;
  /** How the client waits between attempts. Injectable so tests need no timers. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Source of jitter in [0, 1). Default `Math.random`. */
  random?: () => number;
  /** Ids for JSON-RPC requests and for messages sent without a messageId. Default `crypto.randomUUID`. */
  generateId?: () => string;
}

/** Per-call options every method takes. */
export interface RequestOptions {
  signal?: AbortSignal;
  /** Overrides the client's `timeoutMs` for this call. */
  timeoutMs?: number;
}

export const CLIENT_DEFAULTS = {
  maxRetries: 2,
  maxResumeAttempts: 5,
  timeoutMs: 60_000,
  // Three missed keep-alive comments (the server sends one every 15 s).
  streamIdleTimeoutMs: 45_000,
} as const;
