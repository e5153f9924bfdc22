import type { JsonRpcErrorObject } from "@a2a-partner/a2a-core";
import { fromHttpJsonStatus, fromV1Error, type MethodName, methodWire } from "@a2a-partner/a2a-core/protocol";
import { jsonOrUndefined } from "./read-body.js";

/** One call as an HTTP+JSON request: the verb, the URL under the binding's base, the body of a POST. */
export interface HttpJsonRequest {
  verb: "GET" | "POST" | "DELETE";
  url: string;
  body?: string;
}

/**
 * The route of A2A v1.0's HTTP+JSON binding for a method, from the method table: its params (in the v1.0
 * shapes) spread over the path's fields, the query and the body as the binding puts them
 * (docs/interop.md, "The HTTP+JSON binding").
 */
export function httpJsonRequest(base: string, method: MethodName, params: Record<string, unknown>): HttpJsonRequest {
  const route = methodWire(method).http[0];
  if (!route) throw new TypeError(`${method} has no HTTP+JSON route`);
  const path = route.path.replace(/\{(\w+)\}/g, (_field, name: string) => encodeURIComponent(String(params[name])));
  const url = `${base}${path}${query(params, Object.keys(route.query ?? {}))}`;
  return { verb: route.verb, url, ...(route.body ? { body: JSON.stringify(params) } : {}) };
}

/** The params the route reads from the query, in the order the params name them. */
function query(params: Record<string, unknown>, names: readonly string[]): string {
  const search = new URLSearchParams();
  for (const name of Object.keys(params).filter((key) => names.includes(key))) {
    const value = params[name];
    if (value !== undefined) search.set(name, String(value));
  }
  const text = search.toString();
  return text === "" ? "" : `?${text}`;
}

/** The v0.3 error object an HTTP+JSON error body (`{ error: google.rpc.Status }`) stands for, if any. */
export function httpJsonErrorOf(text: string): JsonRpcErrorObject | undefined {
  const error = fromHttpJsonStatus(jsonOrUndefined(text));
  return error && fromV1Error(error);
}
