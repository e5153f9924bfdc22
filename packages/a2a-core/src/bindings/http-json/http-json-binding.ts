import { BodyReadError } from "../../ports/body-read-error.js";
import type { A2AHandlerRequest } from "../../ports/handler.js";
import type { A2AHandlerResponse } from "../../ports/handler-response.js";
import type { Refusal } from "../../ports/refusal.js";
import { A2A_VERSION_HEADER } from "../../protocol/dialect/protocol-version.js";
import { DIALECT_V1 } from "../../protocol/dialect/v1-dialect.js";
import {
  InternalError,
  InvalidRequestError,
  MethodNotFoundError,
  ParseError,
  type VersionNotSupportedError,
} from "../../protocol/errors.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";
import type { Admission } from "../../runtime/admission/admission.js";
import { BARE_FRAMES } from "../../runtime/hub/live-event.js";
import { asksA2AMediaType, contentTypeRefusal, labelledA2A } from "../media-type.js";
import { type BindingCodec, bindingPipeline } from "../pipeline.js";
import { retryAfterHeaders } from "../retry-after.js";
import { refuseUnlessV1 } from "../v1-only.js";
import { paramsOf } from "./request-params.js";
import type { HttpJsonMatch, HttpJsonRoute } from "./routes.js";
import { statusAnswer } from "./status-body.js";

/** A route, and whether its answers are labelled with A2A's media type (the client asked for it). */
type RouteCall = HttpJsonRoute & { a2aMediaType: boolean };

const HTTP_JSON: BindingCodec<RouteCall> = {
  // A POST's body is read even when the route takes none, so the connection stays reusable.
  readsBody: (route) => route.route.verb === "POST",
  decode(route, body, request) {
    const refuse =
      (route.route.verb === "POST" ? contentTypeRefusal(request) : undefined) ?? versionRefusal(request, route);
    return {
      // Read only for a method that runs: an unsupported one answers so whatever its body.
      call: {
        method: route.method,
        wireMethod: route.method,
        params: () => paramsOf(route, body),
        dialect: DIALECT_V1,
      },
      requestId: "",
      ...(refuse ? { refuse } : {}),
    };
  },
  value: (_route, value) => ({
    kind: "json",
    status: 200,
    headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
    body: value as Record<string, unknown>,
  }),
  error: (_route, error) => statusAnswer(error),
  // A store outage or a bug: retryable, and nothing of the cause in the answer (as in JSON-RPC).
  unavailable: () =>
    statusAnswer(new InternalError("Service temporarily unavailable; retry the request"), {
      httpStatus: 503,
      headers: { "retry-after": "1" },
    }),
  refusal: refusalAnswer,
  bodyRefusal,
  frames: () => ({ requestIdJson: BARE_FRAMES, render: DIALECT_V1.stream }),
  finish: (route, response) => (route.a2aMediaType ? labelledA2A(response) : response),
};

/**
 * A2A v1.0's HTTP+JSON binding: the shared pipeline with the HTTP+JSON codec — route → params → method
 * call → the resource (or an SSE stream of bare `StreamResponse` frames), errors as HTTP statuses with a
 * `google.rpc.Status` body. Requests that name no route are answered before admission.
 */
export function httpJsonBinding(
  runtime: A2ARuntime,
  admission: Admission,
): (request: A2AHandlerRequest, match: HttpJsonMatch) => Promise<A2AHandlerResponse> {
  const pipeline = bindingPipeline(runtime, admission, HTTP_JSON);
  return async (request, match) => {
    switch (match.kind) {
      case "route":
        return pipeline(request, { ...match, a2aMediaType: asksA2AMediaType(request) });
      case "wrong-verb":
        return statusAnswer(new InvalidRequestError(`Use ${match.allow} for this route`), {
          httpStatus: 405,
          headers: { allow: match.allow },
        });
      case "bad-path":
        return statusAnswer(new InvalidRequestError("The path may not hold dot segments or encoded slashes"));
      case "no-route": {
        const hint = match.basePathUnset ? " (routes are matched below the handler's basePath, which is not set)" : "";
        return statusAnswer(new MethodNotFoundError(`No HTTP+JSON route ${match.path}${hint}`));
      }
    }
  };
}

/** The version asked for, by header or (as JSON-RPC allows) query parameter: 1.0 or none. */
function versionRefusal(request: A2AHandlerRequest, route: HttpJsonRoute): VersionNotSupportedError | undefined {
  return refuseUnlessV1(request.headers.get(A2A_VERSION_HEADER) ?? route.query.get(A2A_VERSION_HEADER));
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
        headers: retryAfterHeaders(retryAfterMs),
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
