import type { z } from "zod";
import type { Caller } from "../ports/caller.js";
import type { TaskRecord } from "../ports/task-records.js";
import type { Dialect } from "../protocol/dialect/dialect.js";
import type { ProtocolVersion } from "../protocol/dialect/protocol-version.js";
import { InvalidParamsError } from "../protocol/errors.js";
import type { HeaderReader } from "../protocol/header-reader.js";
import type { MethodName } from "../protocol/method-table.js";
import type { Message } from "../protocol/schemas/a2a.js";
import type { A2ARuntime } from "../runtime/a2a-runtime.js";
import type { RequestTrace } from "../telemetry/handler-telemetry.js";

/** One call of a method, whichever binding decoded it. `params` are checked, in the v0.3 shapes. */
export interface MethodCall<P> {
  params: P;
  caller: Caller;
  headers: HeaderReader;
  /** The protocol version the request speaks (a few rules differ: see SubscribeToTask). */
  version: ProtocolVersion;
  trace: RequestTrace;
}

/** A streaming method's answer: which task to stream, and after which event; the binding frames it. */
export interface TaskStreamStart {
  record: TaskRecord;
  afterSeq: number;
}

/** A start answered with a message, not a task (`TaskExecutor.reply`): nothing was stored. */
export interface MessageReply {
  reply: Message;
}

/** A method answered with one value: `render` turns it into the request's dialect. */
export interface UnaryMethod<S extends z.ZodType, R> {
  /** Its name in the method table (protocol/method-table.ts), which holds what the wire says of it. */
  name: MethodName;
  streaming: false;
  params: S;
  run(runtime: A2ARuntime, call: MethodCall<z.infer<S>>): Promise<R>;
  render(dialect: Dialect, result: R): unknown;
}

/** A method answered with a task's stream. */
export interface StreamingMethod<S extends z.ZodType> {
  name: MethodName;
  streaming: true;
  params: S;
  run(runtime: A2ARuntime, call: MethodCall<z.infer<S>>): Promise<TaskStreamStart | MessageReply>;
}

// biome-ignore lint/suspicious/noExplicitAny: a table holds methods of every params and result type.
export type MethodDefinition = UnaryMethod<any, any> | StreamingMethod<any>;

/** The params checked against the method's schema; -32602 naming the fields otherwise. */
export function parseParams<T extends z.ZodType>(schema: T, params: unknown): z.infer<T> {
  const parsed = schema.safeParse(params);
  if (!parsed.success) throw InvalidParamsError.fromZod(parsed.error);
  return parsed.data;
}
