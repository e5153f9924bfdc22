import { type InvocationResult, invoke } from "../../methods/invoke.js";
import { BodyReadError } from "../../ports/body-read-error.js";
import type { Caller } from "../../ports/caller.js";
import type { A2AHandlerRequest } from "../../ports/handler.js";
import type { A2AHandlerResponse } from "../../ports/handler-response.js";
import { isRefusal, type Refusal } from "../../ports/refusal.js";
import { DIALECT_V1 } from "../../protocol/dialect/dialect.js";
import { A2A_VERSION_HEADER, parseProtocolVersion } from "../../protocol/dialect/protocol-version.js";
import {
  InternalError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  VersionNotSupportedError,
} from "../../protocol/errors.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";
import type { Admission, RequestSlot } from "../../runtime/admission/admission.js";
import { BARE_FRAMES } from "../../runtime/hub/live-event.js";
import type { RequestTrace } from "../../telemetry/handler-telemetry.js";
import { answerableError, answerInvocation } from "../invocation-answer.js";
import { paramsOf } from "./request-params.js";
import type { HttpJsonMatch, HttpJsonRoute } from "./routes.js";
import { statusAnswer } from "./status-body.js";

/**
 * A2A v1.0's HTTP+JSON binding: admission, then route → params → method call → the resource (or an SSE
 * stream of bare `StreamResponse` frames), errors as HTTP statuses with a `google.rpc.Status` body. The
 * same methods, admission, limits and streams as the JSON-RPC binding; nothing method-specific here.
 */
export function httpJsonBinding(
  runtime: A2ARuntime,
  admission: Admission,
): (request: A2AHandlerRequest, match: HttpJsonMatch) => Promise<A2AHandlerResponse> {
  const { telemetry } = runtime;

  async function answer(request: A2AHandlerRequest, route: HttpJsonRoute, trace: RequestTrace, slot: RequestSlot) {
    try {
      const caller = await admission.identify(request.headers, trace, slot);
      if (isRefusal(caller)) return refusalAnswer(caller);
      let body = "";
      if (route.body) {
        try {
          body = typeof request.body === "string" ? request.body : await request.body();
        } catch (error) {
          return bodyRefusal(error);
        }
      }
      telemetry.decoded(trace, { method: route.method, wireMethod: route.method, id: "" });
      const version = versionRefusal(request, route);
      if (version) throw version;
      // Parsed and invoked in one synchronous step: only the method's promise is waited on (see invoke).
      const result = await invokeRoute(runtime, route, body, caller, request, trace);
      return answerInvocation(
        runtime,
        result,
        { value: valueAnswer, refusal: refusalAnswer, requestIdJson: BARE_FRAMES, render: DIALECT_V1.stream },
        trace,
      );
    } catch (error) {
      const answerable = answerableError(runtime, error, trace);
      if (answerable) return statusAnswer(answerable);
      // A store outage or a bug: retryable, and nothing of the cause in the answer (as in JSON-RPC).
      return statusAnswer(new InternalError("Service temporarily unavailable; retry the request"), {
        httpStatus: 503,
        headers: { "retry-after": "1" },
      });
    }
  }

  return async function handle(request, match) {
    if (match.kind === "wrong-verb") {
      return statusAnswer(new InvalidRequestError(`Use ${match.allow} for this route`), {
        httpStatus: 405,
        headers: { allow: match.allow },
      });
    }
    if (match.kind === "no-route") {
      return statusAnswer(new MethodNotFoundError(`No HTTP+JSON route ${match.path}`));
    }
    const trace = telemetry.startRequest(request.headers);
    const response = await admission.admit((slot) => answer(request, match, trace, slot), refusalAnswer);
    telemetry.endRequest(trace, response);
    return response;
  };
}

/** The route's params read from its path, query and body, and its method invoked with them. */
function invokeRoute(
  runtime: A2ARuntime,
  route: HttpJsonRoute,
  body: string,
  caller: Caller,
  request: A2AHandlerRequest,
  trace: RequestTrace,
): Promise<InvocationResult> {
  try {
    return invoke(runtime, {
      method: route.method,
      wireMethod: route.method,
      // A method turned off answers -32004 whatever its body holds, as over JSON-RPC.
      params: runtime.turnedOff.has(route.method) ? {} : paramsOf(route, body),
      caller,
      headers: request.headers,
      dialect: DIALECT_V1,
      trace,
    });
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The binding speaks A2A v1.0 only: without `A2A-Version` a request is read as 1.0 (there is no v0.3
 * HTTP+JSON to fall back to); an explicit other version is refused.
 */
function versionRefusal(request: A2AHandlerRequest, route: HttpJsonRoute): VersionNotSupportedError | undefined {
  const raw = request.headers.get(A2A_VERSION_HEADER) ?? route.query.get(A2A_VERSION_HEADER) ?? "";
  if (raw.trim() === "") return undefined;
  const requested = parseProtocolVersion(raw);
  if (requested.ok && requested.version === "1.0") return undefined;
  return VersionNotSupportedError.forVersion(raw.trim(), ["1.0"]);
}

function valueAnswer(value: unknown): A2AHandlerResponse {
  return {
    kind: "json",
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    body: value as Record<string, unknown>,
  };
}

/** A refusal as HTTP+JSON answers it: its status, the JSON-RPC binding's error as a google.rpc.Status. */
function refusalAnswer(refusal: Refusal): A2AHandlerResponse {
  switch (refusal.status) {
    case 401:
      return statusAnswer(new InvalidRequestError(refusal.message), {
        httpStatus: 401,
        headers: { "www-authenticate": 'Bearer realm="a2a"' },
      });
    case 403:
      return statusAnswer(new InvalidRequestError(refusal.message), { httpStatus: 403 });
    case 429: {
      const retryAfterMs = refusal.retryAfterMs ?? 1000;
      return statusAnswer(new InvalidRequestError(refusal.message, { retryAfterMs }), {
        httpStatus: 429,
        headers: {
          "retry-after": String(Math.max(1, Math.ceil(retryAfterMs / 1000))),
          "retry-after-ms": String(retryAfterMs),
        },
      });
    }
    case 503:
      return statusAnswer(new InternalError(refusal.message), { httpStatus: 503, headers: { "retry-after": "1" } });
  }
}

/** A body that could not be read: 413 over the limit, 400 not UTF-8 (a parse error) or unreadable. */
function bodyRefusal(error: unknown): A2AHandlerResponse {
  if (error instanceof BodyReadError && error.reason === "too-large") {
    return statusAnswer(new InvalidRequestError(error.message), { httpStatus: 413 });
  }
  if (error instanceof BodyReadError) return statusAnswer(new ParseError(error.message));
  return statusAnswer(new InvalidRequestError("The request body could not be read"));
}
