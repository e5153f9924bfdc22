import type { ZodError } from "zod";
import { closestName } from "./closest-name.js";
import type { JsonRpcErrorObject } from "./schemas/jsonrpc.js";

/** The one table of JSON-RPC error codes this protocol uses. */
export const ERROR_CODES = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  TaskNotFound: -32001,
  TaskNotCancelable: -32002,
  PushNotificationNotSupported: -32003,
  UnsupportedOperation: -32004,
  ContentTypeNotSupported: -32005,
  VersionNotSupported: -32009,
} as const;
export type ErrorCodeName = keyof typeof ERROR_CODES;
export type ErrorCode = (typeof ERROR_CODES)[ErrorCodeName];

const A2A_ERROR_BRAND = Symbol.for("a2a-partner.A2AError");

/**
 * Base of every protocol error. Carries the JSON-RPC `code`, a human `message` and optional `data`.
 * Branded with a registry symbol so `isA2AError` holds across ESM and CJS copies of this package.
 */
export class A2AError extends Error {
  readonly [A2A_ERROR_BRAND] = true;
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "A2AError";
    this.code = code;
    this.data = data;
  }

  /** The JSON-RPC error object as it goes on the wire. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

export function isA2AError(value: unknown): value is A2AError {
  return typeof value === "object" && value !== null && (value as Record<symbol, unknown>)[A2A_ERROR_BRAND] === true;
}

export class ParseError extends A2AError {
  constructor(message = "Parse error: the body is not valid JSON", data?: unknown) {
    super(ERROR_CODES.ParseError, message, data);
    this.name = "ParseError";
  }
}

export class InvalidRequestError extends A2AError {
  constructor(message = "Invalid request", data?: unknown) {
    super(ERROR_CODES.InvalidRequest, message, data);
    this.name = "InvalidRequestError";
  }
}

export class MethodNotFoundError extends A2AError {
  constructor(message = "Method not found", data?: unknown) {
    super(ERROR_CODES.MethodNotFound, message, data);
    this.name = "MethodNotFoundError";
  }

  /**
   * `methods`: every name the endpoint answers to, so the caller learns what to send instead; the one a
   * typo most likely meant (`getTask` → `GetTask`) is named in the message and in `data.suggestion`.
   */
  static forMethod(method: string, methods?: readonly string[]): MethodNotFoundError {
    const shown = truncate(method, 100);
    const suggestion = methods ? closestName(method, methods) : undefined;
    return new MethodNotFoundError(
      suggestion === undefined
        ? `Method not found: ${shown}`
        : `Method not found: ${shown}; did you mean ${suggestion}?`,
      {
        method: shown,
        ...(suggestion === undefined ? {} : { suggestion }),
        ...(methods ? { methods: [...methods] } : {}),
      },
    );
  }
}

export interface InvalidParamsIssue {
  /** Dotted path of the offending field, e.g. `params.message.parts.0.text`. */
  field: string;
  message: string;
}

export class InvalidParamsError extends A2AError {
  constructor(message = "Invalid params", data?: unknown, options?: { cause?: unknown }) {
    super(ERROR_CODES.InvalidParams, message, data, options);
    this.name = "InvalidParamsError";
  }

  /**
   * One failing field: `data.field` names it (docs/protocol.md, "Errors"). `cause` (never sent) keeps what refused the
   * value, e.g. a store's driver error, for the server's log.
   */
  static forField(field: string, message: string, options?: { cause?: unknown }): InvalidParamsError {
    return new InvalidParamsError(
      `Invalid params: ${field}: ${message}`,
      { field, issues: [{ field, message }] },
      options,
    );
  }

  /** A zod failure: the failing paths go into `data.issues`, the first one into `data.field`. */
  static fromZod(error: ZodError, prefix = "params"): InvalidParamsError {
    const issues: InvalidParamsIssue[] = error.issues.slice(0, 20).map((issue) => ({
      field: [prefix, ...issue.path.map(String)].join("."),
      message: issue.message,
    }));
    const first = issues[0] ?? { field: prefix, message: "invalid" };
    return new InvalidParamsError(`Invalid params: ${first.field}: ${first.message}`, { field: first.field, issues });
  }
}

export class InternalError extends A2AError {
  constructor(message = "Internal error", data?: unknown, options?: { cause?: unknown }) {
    super(ERROR_CODES.InternalError, message, data, options);
    this.name = "InternalError";
  }
}

export class TaskNotFoundError extends A2AError {
  constructor(message = "Task not found", data?: unknown) {
    super(ERROR_CODES.TaskNotFound, message, data);
    this.name = "TaskNotFoundError";
  }

  static forTask(taskId: string): TaskNotFoundError {
    return new TaskNotFoundError("Task not found", { taskId: truncate(taskId, 256) });
  }
}

export class TaskNotCancelableError extends A2AError {
  constructor(message = "Task cannot be canceled", data?: unknown) {
    super(ERROR_CODES.TaskNotCancelable, message, data);
    this.name = "TaskNotCancelableError";
  }

  /** `data.state` carries the task's terminal state (docs/protocol.md, Errors). */
  static forTask(taskId: string, state: string): TaskNotCancelableError {
    return new TaskNotCancelableError(`Task cannot be canceled: it is already ${state}`, { taskId, state });
  }
}

/** A push-notification method: this endpoint does not send push notifications (its card says so). */
export class PushNotificationNotSupportedError extends A2AError {
  constructor(message = "Push notifications are not supported", data?: unknown) {
    super(ERROR_CODES.PushNotificationNotSupported, message, data);
    this.name = "PushNotificationNotSupportedError";
  }

  /** `instead`: how to follow a task without push (the methods name it: "SubscribeToTask or GetTask"). */
  static forMethod(method: string, instead: string): PushNotificationNotSupportedError {
    return new PushNotificationNotSupportedError(
      `Push notifications are not supported (${method}); follow the task with ${instead}`,
      { method },
    );
  }
}

export class UnsupportedOperationError extends A2AError {
  constructor(message = "This operation is not supported", data?: unknown) {
    super(ERROR_CODES.UnsupportedOperation, message, data);
    this.name = "UnsupportedOperationError";
  }

  static forMethod(method: string): UnsupportedOperationError {
    return new UnsupportedOperationError(`This operation is not supported: ${method}`, { method });
  }
}

/** A media type the request uses is not one the agent takes (HTTP+JSON: the body's `Content-Type`). */
export class ContentTypeNotSupportedError extends A2AError {
  constructor(message = "This content type is not supported", data?: unknown) {
    super(ERROR_CODES.ContentTypeNotSupported, message, data);
    this.name = "ContentTypeNotSupportedError";
  }
}

/** The `A2A-Version` a request asked for is not one this endpoint speaks (A2A v1.0). */
export class VersionNotSupportedError extends A2AError {
  constructor(message = "This A2A protocol version is not supported", data?: unknown) {
    super(ERROR_CODES.VersionNotSupported, message, data);
    this.name = "VersionNotSupportedError";
  }

  static forVersion(requested: string, supported: readonly string[]): VersionNotSupportedError {
    const shown = truncate(requested, 32);
    return new VersionNotSupportedError(
      `A2A version ${shown} is not supported; supported versions: ${supported.join(", ")}`,
      { requestedVersion: shown, supportedVersions: [...supported] },
    );
  }
}

/**
 * Turns anything thrown into a wire error. Protocol errors pass through; anything else becomes a bare
 * -32603 so that no stack trace, SQL or driver message reaches a client.
 */
export function toJsonRpcError(error: unknown): JsonRpcErrorObject {
  if (isA2AError(error)) return error.toJSON();
  return new InternalError().toJSON();
}

const ERROR_CLASS_BY_CODE = new Map<number, new (message?: string, data?: unknown) => A2AError>([
  [ERROR_CODES.ParseError, ParseError],
  [ERROR_CODES.InvalidRequest, InvalidRequestError],
  [ERROR_CODES.MethodNotFound, MethodNotFoundError],
  [ERROR_CODES.InvalidParams, InvalidParamsError],
  [ERROR_CODES.InternalError, InternalError],
  [ERROR_CODES.TaskNotFound, TaskNotFoundError],
  [ERROR_CODES.TaskNotCancelable, TaskNotCancelableError],
  [ERROR_CODES.PushNotificationNotSupported, PushNotificationNotSupportedError],
  [ERROR_CODES.UnsupportedOperation, UnsupportedOperationError],
  [ERROR_CODES.ContentTypeNotSupported, ContentTypeNotSupportedError],
  [ERROR_CODES.VersionNotSupported, VersionNotSupportedError],
]);

/** Rebuilds the typed error for a wire error object (used by clients). Unknown codes give a plain A2AError. */
export function fromJsonRpcError(error: JsonRpcErrorObject): A2AError {
  const ErrorClass = ERROR_CLASS_BY_CODE.get(error.code);
  return ErrorClass ? new ErrorClass(error.message, error.data) : new A2AError(error.code, error.message, error.data);
}

function truncate(value: string, max: number): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}

// A bundler renames a class that refers to itself (`_TaskNotFoundError`); each class's name is set here,
// once at load, so `console.log(err)`, stack traces and `err.constructor.name` show the name users know.
for (const [name, errorClass] of Object.entries({
  A2AError,
  ParseError,
  InvalidRequestError,
  MethodNotFoundError,
  InvalidParamsError,
  InternalError,
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  VersionNotSupportedError,
})) {
  Object.defineProperty(errorClass, "name", { value: name });
}
