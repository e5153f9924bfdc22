import type { Caller } from "../ports/caller.js";
import type { Refusal } from "../ports/refusal.js";
import type { Dialect } from "../protocol/dialect/dialect.js";
import { PushNotificationNotSupportedError, UnsupportedOperationError } from "../protocol/errors.js";
import type { HeaderReader } from "../protocol/header-reader.js";
import { type MethodName, methodWire } from "../protocol/method-table.js";
import type { Message } from "../protocol/schemas/a2a.js";
import type { A2ARuntime } from "../runtime/a2a-runtime.js";
import type { ReleaseSlot } from "../runtime/per-caller-slots.js";
import type { RequestTrace } from "../telemetry/handler-telemetry.js";
import { type MessageReply, parseParams, type TaskStreamStart } from "./method.js";
import { METHOD_REGISTRY } from "./registry.js";
import { FOLLOW_A_TASK } from "./support/follow-hint.js";

/** A decoded request of any binding: the method, its raw params in the request's dialect, who asks. */
export interface Invocation {
  method: MethodName;
  /** The name as sent, for the unsupported-operation error. */
  wireMethod: string;
  /** In the request's dialect; a function when reading them can fail, called only for a method that runs. */
  params: Record<string, unknown> | (() => Record<string, unknown>);
  caller: Caller;
  headers: HeaderReader;
  dialect: Dialect;
  trace: RequestTrace;
}

/** A method's answer, for the binding to encode: a value in the request's dialect, a stream, or a refusal. */
export type InvocationResult =
  | { kind: "value"; value: unknown }
  | { kind: "stream"; start: TaskStreamStart; release: ReleaseSlot }
  /** A streaming start the executor answered with a message: a stream of that one frame. */
  | { kind: "reply"; message: Message }
  | Refusal;

/**
 * Runs one method: the params turned into the v0.3 shapes and checked, a stream slot for a streaming
 * method, then the method itself. Rejects with the method's A2A errors (and store failures) for the
 * binding. Not async, on purpose: the params are read in the turn they were parsed in, and only the
 * method's own promise is waited on, so no suspended frame here keeps a request's objects alive while a
 * task start waits for the store (see sendStreamingMessage).
 */
export function invoke(runtime: A2ARuntime, invocation: Invocation): Promise<InvocationResult> {
  try {
    return invokeNow(runtime, invocation);
  } catch (error) {
    return Promise.reject(error);
  }
}

function invokeNow(runtime: A2ARuntime, invocation: Invocation): Promise<InvocationResult> {
  const { method, dialect } = invocation;
  const definition = METHOD_REGISTRY.get(method);
  // Push off (no push stores, or turned off): the push-config methods say so before reading their params.
  if (methodWire(method).feature === "push" && !runtime.push) {
    throw PushNotificationNotSupportedError.forMethod(invocation.wireMethod, FOLLOW_A_TASK);
  }
  // Not implemented, or turned off by the embedder (`methods` of the handler options).
  if (!definition || runtime.turnedOff.has(method)) throw UnsupportedOperationError.forMethod(invocation.wireMethod);
  // From here on the request is in the v0.3 shapes, whichever dialect it came in.
  const params = invocation.params;
  const raw = dialect.params(method, typeof params === "function" ? params() : params);
  const call = {
    caller: invocation.caller,
    headers: invocation.headers,
    version: dialect.version,
    trace: invocation.trace,
  };
  if (!definition.streaming) {
    const result: Promise<unknown> = definition.run(runtime, { ...call, params: parseParams(definition.params, raw) });
    return result.then((value) => ({ kind: "value", value: definition.render(dialect, value) }));
  }
  // The slot is taken before anything else, so a burst cannot get past the cap; the stream gives it back.
  const release = runtime.slots.take(invocation.caller.key);
  if (!release) {
    runtime.telemetry.refused("stream_cap");
    return Promise.resolve({
      kind: "refusal",
      status: 429,
      retryAfterMs: 1000,
      message: `Too many open streams (at most ${runtime.maxOpenStreamsPerCaller} per caller); close one first`,
    });
  }
  let started: Promise<TaskStreamStart | MessageReply>;
  try {
    started = definition.run(runtime, { ...call, params: parseParams(definition.params, raw) });
  } catch (error) {
    release();
    throw error;
  }
  return started.then(
    (start): InvocationResult => {
      if ("record" in start) return { kind: "stream", start, release };
      release();
      return { kind: "reply", message: start.reply };
    },
    (error: unknown) => {
      release();
      throw error;
    },
  );
}
