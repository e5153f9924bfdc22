import type { A2AHandlerRequest } from "../../ports/handler.js";
import type { A2AHandlerResponse } from "../../ports/handler-response.js";
import type { Refusal } from "../../ports/refusal.js";
import type { Dialect } from "../../protocol/dialect/dialect.js";
import { dialectFor } from "../../protocol/dialect/dialect-for.js";
import { requestedProtocolVersion, SUPPORTED_PROTOCOL_VERSIONS } from "../../protocol/dialect/protocol-version.js";
import { DIALECT_V1 } from "../../protocol/dialect/v1-dialect.js";
import { VersionNotSupportedError } from "../../protocol/errors.js";
import { onlyV1ByShape } from "../../protocol/method-table.js";
import type { JsonRpcErrorResponse, JsonRpcId } from "../../protocol/schemas/jsonrpc.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";
import type { Admission } from "../../runtime/admission/admission.js";
import { contentTypeRefusal } from "../media-type.js";
import { type BindingCodec, bindingPipeline } from "../pipeline.js";
import { decodeJsonRpcRequest } from "./codec.js";
import { authFailure, bodyRefusal, jsonAnswer, tooManyRequests, unavailable } from "./json-responses.js";

/** What the JSON-RPC codec knows of one request: the dialect it speaks, then its id once decoded. */
interface JsonRpcContext {
  /** Chosen by A2A-Version (v1.0 when the version is refused); a request naming none may turn v1.0 by shape. */
  dialect: Dialect;
  versionRefusal: VersionNotSupportedError | undefined;
  /** No version given: the body may still say v1.0 by its shape (docs/interop.md). */
  sniff: boolean;
  id: JsonRpcId | null;
}

const JSON_RPC: BindingCodec<JsonRpcContext> = {
  readsBody: () => true,
  decode(context, body, request) {
    // A v1.0 client (by its header) sends JSON as JSON; the v0.3 endpoint never checked the header.
    const mediaRefusal = context.dialect === DIALECT_V1 && !context.sniff ? contentTypeRefusal(request) : undefined;
    if (mediaRefusal) return { answer: jsonAnswer(null, mediaRefusal) };
    const decoded = decodeJsonRpcRequest(body);
    if (!decoded.ok) return { answer: jsonAnswer(decoded.id, decoded.error) };
    const call = decoded.request;
    context.id = call.id;
    if (!context.versionRefusal && context.sniff && onlyV1ByShape(call.method, call.params)) {
      context.dialect = DIALECT_V1;
    }
    return {
      call: { method: call.method, wireMethod: call.wireMethod, params: call.params, dialect: context.dialect },
      requestId: call.id,
      ...(context.versionRefusal ? { refuse: context.versionRefusal } : {}),
    };
  },
  value: (context, value) => jsonAnswer(context.id, undefined, value),
  error: (context, error) => jsonAnswer(context.id, error),
  // The caller may retry: 503 + Retry-After (clients retry 5xx) with a bare -32603 that reveals nothing.
  unavailable: (context) => unavailable("Service temporarily unavailable; retry the request", context.id),
  refusal: refusalAnswer,
  bodyRefusal,
  frames: (context) => ({ requestIdJson: JSON.stringify(context.id), render: context.dialect.stream }),
  finish: (context, response) => inDialect(context.dialect, response),
};

/**
 * The JSON-RPC 2.0 binding (with SSE for streaming methods): the shared pipeline with the JSON-RPC
 * codec, the dialect chosen per request by `A2A-Version`. Nothing method-specific lives here.
 */
export function jsonRpcBinding(
  runtime: A2ARuntime,
  admission: Admission,
): (request: A2AHandlerRequest) => Promise<A2AHandlerResponse> {
  const pipeline = bindingPipeline(runtime, admission, JSON_RPC);
  return (request) => {
    const requested = requestedProtocolVersion(request.headers, request.url);
    return pipeline(request, {
      dialect: requested.ok ? dialectFor(requested.version) : DIALECT_V1,
      versionRefusal: requested.ok
        ? undefined
        : VersionNotSupportedError.forVersion(requested.requested, SUPPORTED_PROTOCOL_VERSIONS),
      sniff: requested.ok && requested.implicit === true,
      id: null,
    });
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
  if (response.kind !== "json" || !("error" in response.body)) return response;
  const body = response.body as JsonRpcErrorResponse;
  const error = dialect.error(body.error);
  return error === body.error ? response : { ...response, body: { ...body, error } };
}
