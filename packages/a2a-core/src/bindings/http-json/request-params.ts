import { InvalidRequestError } from "../../protocol/errors.js";
import { parseJsonBody } from "../json-body.js";
import type { HttpJsonRoute } from "./routes.js";

/**
 * A route's request as the method's v1.0 params (what the JSON-RPC binding's v1.0 dialect takes): the
 * body when the route takes one, the path's fields over any the body names, then the query's, each read
 * as the kind the method table gives it.
 */
export function paramsOf(match: HttpJsonRoute, body: string): Record<string, unknown> {
  const params: Record<string, unknown> = match.route.body ? bodyObject(body) : {};
  Object.assign(params, match.pathParams);
  for (const [name, kind] of Object.entries(match.route.query ?? {})) {
    const value = match.query.get(name);
    if (value !== null) params[name] = queryValue(kind, value);
  }
  return params;
}

// Query parameters are text; a value that is not of its kind is passed on as text, so the method's
// schema refuses it naming the field.
function queryValue(kind: "integer" | "boolean" | "string", value: string): unknown {
  if (kind === "integer" && /^-?\d{1,15}$/.test(value)) return Number(value);
  if (kind === "boolean" && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** The JSON body of a request, which must be an object (bounded in depth like a JSON-RPC body). */
function bodyObject(body: string): Record<string, unknown> {
  const parsed = parseJsonBody(body);
  if (!parsed.ok) throw parsed.error;
  const value = parsed.value;
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidRequestError("Invalid request: the body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
