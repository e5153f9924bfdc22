import type { JsonRpcErrorObject } from "@a2a-partner/a2a-core";

const CLIENT_ERROR_BRAND = Symbol.for("a2a-partner.A2AClientError");
const HTTP_ERROR_BRAND = Symbol.for("a2a-partner.A2AHttpError");

/**
 * Base of the errors the client itself raises (transport, HTTP status, malformed answers). Branded with a
 * registry symbol so `isA2AClientError` holds across ESM and CJS copies of this package.
 */
export class A2AClientError extends Error {
  readonly [CLIENT_ERROR_BRAND] = true;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "A2AClientError";
  }
}

export function isA2AClientError(value: unknown): value is A2AClientError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[CLIENT_ERROR_BRAND] === true;
}

/** The server answered with a non-2xx HTTP status. */
export class A2AHttpError extends A2AClientError {
  readonly [HTTP_ERROR_BRAND] = true;
  readonly status: number;
  readonly headers: Headers;
  /** The JSON-RPC error object of the body, when the body carried one. */
  readonly error: JsonRpcErrorObject | undefined;

  constructor(status: number, headers: Headers, error: JsonRpcErrorObject | undefined, message?: string) {
    super(message ?? httpErrorMessage(status, error));
    this.name = "A2AHttpError";
    this.status = status;
    this.headers = headers;
    this.error = error;
  }

  /** The JSON-RPC error code of the body, if any. */
  get code(): number | undefined {
    return this.error?.code;
  }

  /** The subclass for a status: what `instanceof` / `name` checks in callers rely on. */
  static from(status: number, headers: Headers, error: JsonRpcErrorObject | undefined): A2AHttpError {
    switch (status) {
      case 400:
        return new BadRequestError(status, headers, error);
      case 401:
        return new AuthenticationError(status, headers, error);
      case 403:
        return new PermissionError(status, headers, error);
      case 404:
        return new NotFoundError(status, headers, error);
      case 413:
        return new PayloadTooLargeError(status, headers, error);
      case 429:
        return new RateLimitError(status, headers, error);
      default:
        return status >= 500 ? new ServerError(status, headers, error) : new A2AHttpError(status, headers, error);
    }
  }
}

export function isA2AHttpError(value: unknown): value is A2AHttpError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[HTTP_ERROR_BRAND] === true;
}

/** 400: the server could not read the request. */
export class BadRequestError extends A2AHttpError {
  override readonly name = "BadRequestError";
}

/** 401: the token is missing or invalid. */
export class AuthenticationError extends A2AHttpError {
  override readonly name = "AuthenticationError";
}

/** 403: the token is valid but not allowed here (e.g. a user session token instead of a partner token). */
export class PermissionError extends A2AHttpError {
  override readonly name = "PermissionError";
}

/** 404: nothing at this URL; usually a wrong `baseUrl`. */
export class NotFoundError extends A2AHttpError {
  override readonly name = "NotFoundError";
}

/** 413: the request body is larger than the server accepts. */
export class PayloadTooLargeError extends A2AHttpError {
  override readonly name = "PayloadTooLargeError";
}

/** 429: rate limited. `retryAfterMs` is the server's `retry-after(-ms)` hint, when it sent one. */
export class RateLimitError extends A2AHttpError {
  override readonly name = "RateLimitError";
  readonly retryAfterMs: number | undefined;

  constructor(status: number, headers: Headers, error: JsonRpcErrorObject | undefined, message?: string) {
    super(status, headers, error, message);
    this.retryAfterMs = parseRetryAfter(headers);
  }
}

/** 5xx: the server failed or is unavailable. */
export class ServerError extends A2AHttpError {
  override readonly name = "ServerError";
}

/** The request did not get an answer: DNS, refused or reset connection, or a stream that kept dropping. */
export class APIConnectionError extends A2AClientError {
  constructor(message = "Connection error", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "APIConnectionError";
  }
}

/** No answer (or, on a stream, no byte) within the configured time. */
export class APITimeoutError extends APIConnectionError {
  constructor(message = "Request timed out", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "APITimeoutError";
  }
}

/** The caller aborted (AbortSignal, `stream.abort()`). Never retried. */
export class APIUserAbortError extends A2AClientError {
  constructor(message = "Request was aborted", options?: { cause?: unknown }) {
    super(message, options);
    this.name = "APIUserAbortError";
  }
}

/** The server answered, but not in the shape the protocol promises (wrong content type, bad frame). */
export class InvalidResponseError extends A2AClientError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "InvalidResponseError";
  }
}

/**
 * An agent card declared an endpoint the client will not send the token to: another origin (without
 * `allowCrossOriginEndpoint`) or plain http from an https card. Raised by `discover()`; nothing was sent.
 */
export class UntrustedEndpointError extends A2AClientError {
  readonly endpoint: string;
  readonly cardUrl: string;
  readonly reason: "cross-origin" | "insecure";

  constructor(
    message: string,
    details: { endpoint: string; cardUrl: string; reason: "cross-origin" | "insecure" },
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "UntrustedEndpointError";
    this.endpoint = details.endpoint;
    this.cardUrl = details.cardUrl;
    this.reason = details.reason;
  }
}

/** Why `verifyPushNotification` refused a request. */
export type PushVerificationFailure = "headers" | "timestamp" | "signature" | "payload";

/**
 * A push notification that did not verify: answer it 4xx and do not act on it. `reason`: `headers` (a
 * `webhook-*` header missing), `timestamp` (outside the tolerance: a replay, or a clock far off),
 * `signature` (no signature matches a secret: tampered, or signed with a secret you do not have),
 * `payload` (signed, but not an A2A task event).
 */
export class PushVerificationError extends A2AClientError {
  /** What did not verify. */
  readonly reason: PushVerificationFailure;

  constructor(reason: PushVerificationFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "PushVerificationError";
    this.reason = reason;
  }
}

/**
 * Milliseconds the server asks us to wait: `retry-after-ms` (a non-standard header some servers send),
 * else `retry-after` in seconds or as an HTTP date. Undefined when absent or unparseable.
 */
export function parseRetryAfter(headers: Headers, now: () => number = Date.now): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null) {
    const value = Number.parseFloat(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now());
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

function httpErrorMessage(status: number, error: JsonRpcErrorObject | undefined): string {
  const head = `${status} ${STATUS_TEXT[status] ?? "HTTP error"}`;
  // Only the server's JSON-RPC message is shown, never a raw body (it may be an HTML error page).
  return error ? `${head}: ${truncate(error.message, 300)}` : head;
}

function truncate(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

// A bundler renames a class that refers to itself (`_TaskNotFoundError`); each class's name is set here,
// once at load, so `console.log(err)`, stack traces and `err.constructor.name` show the name users know.
for (const [name, errorClass] of Object.entries({
  A2AClientError,
  A2AHttpError,
  BadRequestError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitError,
  ServerError,
  APIConnectionError,
  APITimeoutError,
  APIUserAbortError,
  InvalidResponseError,
  UntrustedEndpointError,
  PushVerificationError,
})) {
  Object.defineProperty(errorClass, "name", { value: name });
}
