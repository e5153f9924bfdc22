import { type InvocationResult, invoke } from "../../methods/invoke.js";
import type { Caller } from "../../ports/caller.js";
import type { A2AHandlerRequest } from "../../ports/handler.js";
import type { A2AHandlerResponse } from "../../ports/handler-response.js";
import { isRefusal, type Refusal } from "../../ports/refusal.js";
import { onlyV1ByShape } from "../../protocol/dialect/body-shape.js";
import { DIALECT_V1, DIALECT_V03, type Dialect, dialectFor } from "../../protocol/dialect/dialect.js";
import { requestedProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from "../../protocol/dialect/protocol-version.js";
import { VersionNotSupportedError } from "../../protocol/errors.js";
import type { JsonRpcErrorResponse, JsonRpcId } from "../../protocol/schemas/jsonrpc.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";
import type { Admission, RequestSlot } from "../../runtime/admission/admission.js";
import type { RequestTrace } from "../../telemetry/handler-telemetry.js";
import { answerableError, answerInvocation } from "../invocation-answer.js";
import { decodeJsonRpcRequest } from "./codec.js";
import { authFailure, bodyRefusal, jsonAnswer, tooManyRequests, unavailable } from "./json-responses.js";

/**
 * The JSON-RPC 2.0 binding (with SSE for streaming methods): admission, then body → envelope → method
 * call → answer in the request's dialect. Nothing method-specific lives here.
 */
export function jsonRpcBinding(
  runtime: A2ARuntime,
  admission: Admission,
): (request: A2AHandlerRequest) => Promise<A2AHandlerResponse> {
  const { telemetry } = runtime;

  async function answer(
    request: A2AHandlerRequest,
    trace: RequestTrace,
    slot: RequestSlot,
  ): Promise<A2AHandlerResponse> {
    // The dialect is chosen per request (A2A-Version); an unknown version is refused in v1.0 terms.
    const requested = requestedProtocolVersion(request.headers, request.url);
    const dialect = requested.ok ? dialectFor(requested.version) : DIALECT_V1;
    const versionRefusal = requested.ok
      ? undefined
      : VersionNotSupportedError.forVersion(requested.requested, SUPPORTED_PROTOCOL_VERSIONS);
    // No version given: the body may still say v1.0 by its shape (docs/interop.md); the choice lands here.
    const sniffed = requested.ok && requested.implicit ? { dialect } : undefined;
    const response = await answerIn(request, trace, slot, dialect, versionRefusal, sniffed);
    return inDialect(sniffed?.dialect ?? dialect, response);
  }

  async function answerIn(
    request: A2AHandlerRequest,
    trace: RequestTrace,
    slot: RequestSlot,
    dialect: Dialect,
    versionRefusal: VersionNotSupportedError | undefined,
    sniffed: { dialect: Dialect } | undefined,
  ): Promise<A2AHandlerResponse> {
    let id: JsonRpcId | null = null;
    try {
      const caller = await admission.identify(request.headers, trace, slot);
      if (isRefusal(caller)) return refusalAnswer(caller);
      let body: string;
      try {
        body = typeof request.body === "string" ? request.body : await request.body();
      } catch (error) {
        return bodyRefusal(error);
      }
      const call = decodeAndInvoke(body, caller, request, trace, dialect, versionRefusal, sniffed);
      if ("answer" in call) return call.answer;
      id = call.id;
      const result = await call.result;
      const requestId = call.id;
      return answerInvocation(
        runtime,
        result,
        {
          value: (value) => jsonAnswer(requestId, undefined, value),
          refusal: refusalAnswer,
          requestIdJson: JSON.stringify(requestId),
          render: call.dialect.stream,
        },
        trace,
      );
    } catch (error) {
      const answerable = answerableError(runtime, error, trace);
      if (answerable) return jsonAnswer(id, answerable);
      // Not a protocol error: the store failed (an outage) or a bug. Either way the caller may retry, so
      // answer 503 + Retry-After (clients retry 5xx) with a bare -32603 that reveals nothing.
      return unavailable("Service temporarily unavailable; retry the request", id);
    }
  }

  /**
   * The body decoded and the method invoked, in one synchronous step: the request's parsed objects are
   * left behind here, and `answerIn` waits on the method's promise alone (see invoke).
   */
  function decodeAndInvoke(
    body: string,
    caller: Caller,
    request: A2AHandlerRequest,
    trace: RequestTrace,
    dialect: Dialect,
    versionRefusal: VersionNotSupportedError | undefined,
    sniffed: { dialect: Dialect } | undefined,
  ): { answer: A2AHandlerResponse } | { id: JsonRpcId; dialect: Dialect; result: Promise<InvocationResult> } {
    const decoded = decodeJsonRpcRequest(body);
    if (!decoded.ok) return { answer: jsonAnswer(decoded.id, decoded.error) };
    const call = decoded.request;
    telemetry.decoded(trace, call);
    if (versionRefusal) return { id: call.id, dialect, result: Promise.reject(versionRefusal) };
    if (sniffed && onlyV1ByShape(call.method, call.params)) {
      dialect = DIALECT_V1;
      sniffed.dialect = DIALECT_V1;
    }
    const result = invoke(runtime, {
      method: call.method,
      wireMethod: call.wireMethod,
      params: call.params,
      caller,
      headers: request.headers,
      dialect,
      trace,
    });
    return { id: call.id, dialect, result };
  }

  return async function handle(request) {
    const trace = telemetry.startRequest(request.headers);
    const response = await admission.admit((slot) => answer(request, trace, slot), refusalAnswer);
    telemetry.endRequest(trace, response);
    return response;
  };
}

/** A refusal as JSON-RPC answers it: an error with id null and the refusal's HTTP status. */
function refusalAnswer(refusal: Refusal): A2AHandlerResponse {
  switch (refusal.status) {
    case 401:
    case 403:
      return authFailure(refusal.status, refusal.message);
    case 429:
      return tooManyRequests(refusal.retryAfterMs ?? 1000, refusal.message);
    case 503:
      return unavailable(refusal.message);
  }
}

/** A JSON error answer in the request's dialect (v1.0 error details); results are rendered where they are made. */
function inDialect(dialect: Dialect, response: A2AHandlerResponse): A2AHandlerResponse {
  if (dialect === DIALECT_V03 || response.kind !== "json" || !("error" in response.body)) return response;
  const body = response.body as JsonRpcErrorResponse;
  return { ...response, body: { ...body, error: dialect.error(body.error) } };
}
