import { type Invocation, type InvocationResult, invoke } from "../methods/invoke.js";
import type { Caller } from "../ports/caller.js";
import type { A2AHandlerRequest } from "../ports/handler.js";
import type { A2AHandlerResponse } from "../ports/handler-response.js";
import { isRefusal, type Refusal } from "../ports/refusal.js";
import type { StreamRenderer } from "../protocol/dialect/dialect.js";
import type { A2AError } from "../protocol/errors.js";
import type { A2ARuntime } from "../runtime/a2a-runtime.js";
import type { Admission, RequestSlot } from "../runtime/admission/admission.js";
import type { RequestTrace } from "../telemetry/handler-telemetry.js";
import { answerableError, answerInvocation } from "./invocation-answer.js";

/** A request a codec decoded: the call to invoke (the pipeline adds who asks and the trace). */
export type DecodedInvocation = Omit<Invocation, "caller" | "headers" | "trace">;

/** What a codec made of a request's body: a call (maybe refused before it runs), or an answer at once. */
export type Decoded =
  | { call: DecodedInvocation; requestId: string | number; refuse?: A2AError }
  | { answer: A2AHandlerResponse };

/**
 * What one binding adds to the shared pipeline: how its requests are decoded and its answers, errors,
 * refusals and stream frames encoded. `C` is what the codec knows of one request before its body is read
 * (JSON-RPC: the dialect asked for; HTTP+JSON: the route); decoding may add to it (the JSON-RPC id).
 */
export interface BindingCodec<C> {
  /** Whether the pipeline reads the body (HTTP+JSON's GET and DELETE routes have none). */
  readsBody(context: C): boolean;
  /** Synchronous: the request's parsed objects are left behind here (see invoke). */
  decode(context: C, body: string, request: A2AHandlerRequest): Decoded;
  value(context: C, value: unknown): A2AHandlerResponse;
  error(context: C, error: A2AError): A2AHandlerResponse;
  /** A store outage or a bug: a retryable answer that says nothing of the cause. */
  unavailable(context: C): A2AHandlerResponse;
  refusal(refusal: Refusal): A2AHandlerResponse;
  /** A body that could not be read (too large, not UTF-8, cut off). */
  bodyRefusal(error: unknown): A2AHandlerResponse;
  /** How the stream of a streaming method frames its events. */
  frames(context: C): { requestIdJson: string; render: StreamRenderer };
  /** A last touch on every answer made after admission (JSON-RPC: errors in the request's dialect). */
  finish?(context: C, response: A2AHandlerResponse): A2AHandlerResponse;
}

/**
 * The steps every binding shares, once: admit → identify → read the body → decode → invoke → encode.
 * A binding is a codec over it; nothing method-specific and nothing binding-specific lives here.
 */
export function bindingPipeline<C>(
  runtime: A2ARuntime,
  admission: Admission,
  codec: BindingCodec<C>,
): (request: A2AHandlerRequest, context: C) => Promise<A2AHandlerResponse> {
  const { telemetry } = runtime;

  async function answer(request: A2AHandlerRequest, context: C, trace: RequestTrace, slot: RequestSlot) {
    try {
      const caller = await admission.identify(request.headers, trace, slot);
      if (isRefusal(caller)) return codec.refusal(caller);
      let body = "";
      if (codec.readsBody(context)) {
        try {
          body = typeof request.body === "string" ? request.body : await request.body();
        } catch (error) {
          return codec.bodyRefusal(error);
        }
      }
      const started = decodeAndInvoke(request, context, body, caller, trace);
      if ("answer" in started) return started.answer;
      return answerInvocation(
        runtime,
        await started.result,
        { value: (value) => codec.value(context, value), refusal: codec.refusal, ...codec.frames(context) },
        trace,
      );
    } catch (error) {
      const answerable = answerableError(runtime, error, trace);
      return answerable ? codec.error(context, answerable) : codec.unavailable(context);
    }
  }

  /** Decoded and invoked in one synchronous step: only the method's promise is waited on (see invoke). */
  function decodeAndInvoke(
    request: A2AHandlerRequest,
    context: C,
    body: string,
    caller: Caller,
    trace: RequestTrace,
  ): { answer: A2AHandlerResponse } | { result: Promise<InvocationResult> } {
    const decoded = codec.decode(context, body, request);
    if ("answer" in decoded) return decoded;
    const { call } = decoded;
    telemetry.decoded(trace, { method: call.method, wireMethod: call.wireMethod, id: decoded.requestId });
    if (decoded.refuse) return { result: Promise.reject(decoded.refuse) };
    return { result: invoke(runtime, { ...call, caller, headers: request.headers, trace }) };
  }

  return async function handle(request, context) {
    const trace = telemetry.startRequest(request.headers);
    const finish = codec.finish;
    const response = await admission.admit(
      (slot) =>
        finish
          ? answer(request, context, trace, slot).then((answered) => finish(context, answered))
          : answer(request, context, trace, slot),
      codec.refusal,
    );
    telemetry.endRequest(trace, response);
    return response;
  };
}
