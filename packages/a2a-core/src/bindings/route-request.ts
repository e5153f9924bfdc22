import type { A2AHandlerRequest } from "../ports/handler.js";
import { type A2AHandlerResponse, JSON_HEADERS } from "../ports/handler-response.js";
import { InvalidRequestError } from "../protocol/errors.js";
import type { HttpJsonMatch } from "./http-json/routes.js";
import { matchHttpJsonRoute } from "./http-json/routes.js";
import { jsonRpcError } from "./jsonrpc/codec.js";

type Binding = (request: A2AHandlerRequest) => Promise<A2AHandlerResponse>;
type RoutedBinding = (request: A2AHandlerRequest, match: HttpJsonMatch) => Promise<A2AHandlerResponse>;

/**
 * Which binding answers a request: a path below the endpoint's base path that is an HTTP+JSON route
 * (`/message:stream`, `/tasks/{id}`, …) goes to HTTP+JSON; the endpoint's own path is JSON-RPC, which
 * takes POST only (405 otherwise, answered before admission exactly as the adapters always did).
 * `basePath` is the request's own, else the handler's.
 */
export function routeRequest(jsonRpc: Binding, httpJson: RoutedBinding, basePath?: string): Binding {
  return (request) => {
    const verb = request.method ?? "POST";
    const base = request.basePath ?? basePath;
    const match = request.url === undefined ? undefined : matchHttpJsonRoute(verb, request.url, base);
    if (match) return httpJson(request, match);
    if (verb !== "POST") return Promise.resolve(POST_ONLY());
    return jsonRpc(request);
  };
}

const POST_ONLY = (): A2AHandlerResponse => ({
  kind: "json",
  status: 405,
  headers: { ...JSON_HEADERS, allow: "POST" },
  body: jsonRpcError(null, new InvalidRequestError("Use POST for JSON-RPC requests")),
});
