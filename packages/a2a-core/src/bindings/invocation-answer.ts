import type { InvocationResult } from "../methods/invoke.js";
import type { A2AHandlerResponse } from "../ports/handler-response.js";
import type { Refusal } from "../ports/refusal.js";
import type { StreamRenderer } from "../protocol/dialect/dialect.js";
import { type A2AError, isA2AError } from "../protocol/errors.js";
import type { A2ARuntime } from "../runtime/a2a-runtime.js";
import { openTaskStream } from "../runtime/streams/open-task-stream.js";
import type { RequestTrace } from "../telemetry/handler-telemetry.js";
import { replyStream } from "./reply-stream.js";

/** How a binding writes what a method answered: a value, a refusal, or a task's stream. */
export interface InvocationEncoding {
  value(value: unknown): A2AHandlerResponse;
  refusal(refusal: Refusal): A2AHandlerResponse;
  /** Each stream frame's id part: the JSON-RPC request id serialised, or BARE_FRAMES (no envelope). */
  requestIdJson: string;
  render: StreamRenderer;
}

/** The binding's answer to an `invoke` result; a stream is returned unstarted (the adapter starts it). */
export function answerInvocation(
  runtime: A2ARuntime,
  result: InvocationResult,
  encoding: InvocationEncoding,
  trace: RequestTrace,
): A2AHandlerResponse {
  if (result.kind === "value") return encoding.value(result.value);
  if (result.kind === "refusal") return encoding.refusal(result);
  if (result.kind === "reply") return replyStream(encoding, result.message);
  return openTaskStream(runtime, {
    ...result.start,
    requestIdJson: encoding.requestIdJson,
    render: encoding.render,
    release: result.release,
    trace,
  });
}

/**
 * What a thrown error means for the answer, the same in every binding: an A2A error is answered as it
 * is (a store's refusal of the request's data logs its cause); anything else is a store outage or a bug,
 * logged here, and undefined tells the binding to answer a bare, retryable 503.
 */
export function answerableError(runtime: A2ARuntime, error: unknown, trace: RequestTrace): A2AError | undefined {
  const { logger, telemetry } = runtime;
  if (isA2AError(error)) {
    // e.g. a store refusing the request's data (InvalidParamsError): the client gets -32602, the log the cause.
    if (error.cause !== undefined) {
      logger.warn({ err: error.cause, code: error.code, ...telemetry.logFields(trace) }, "request refused");
    }
    return error;
  }
  logger.error({ err: error, ...telemetry.logFields(trace) }, "request failed");
  return undefined;
}
