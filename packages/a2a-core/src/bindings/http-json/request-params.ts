import { InvalidRequestError, ParseError } from "../../protocol/errors.js";
import { A2A_LIMITS } from "../../protocol/limits.js";
import { exceedsNestingDepth } from "../jsonrpc/nesting-depth.js";
import type { HttpJsonRoute } from "./routes.js";

// Query parameters are text; these are numbers or booleans in the method's params. A value that is not
// one is passed on as text, so the method's schema refuses it naming the field.
const INTEGER_QUERY = new Set(["historyLength", "pageSize"]);
const BOOLEAN_QUERY = new Set(["includeArtifacts"]);
const QUERY_PARAMS: Readonly<Partial<Record<HttpJsonRoute["method"], readonly string[]>>> = {
  GetTask: ["historyLength"],
  ListTasks: [
    "contextId",
    "status",
    "pageSize",
    "pageToken",
    "historyLength",
    "statusTimestampAfter",
    "includeArtifacts",
  ],
  ListTaskPushNotificationConfigs: ["pageSize", "pageToken"],
};

/** The routes whose params are the body (a JSON object), with the path's ids added. */
const BODY_PARAMS = new Set<HttpJsonRoute["method"]>([
  "SendMessage",
  "SendStreamingMessage",
  "CreateTaskPushNotificationConfig",
]);

/** The push-config routes name the task `taskId` and the config `id` (a2a.proto's field names). */
const PUSH_CONFIG_ROUTES = new Set<HttpJsonRoute["method"]>([
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
]);

/**
 * A route's request as the method's params, in the v1.0 shapes the JSON-RPC binding's v1.0 dialect
 * takes: the body of a POST (SendMessageRequest for message:stream, TaskPushNotificationConfig for a
 * push config), the path's ids (over any the body names), the query.
 */
export function paramsOf(route: HttpJsonRoute, body: string): Record<string, unknown> {
  const params: Record<string, unknown> = BODY_PARAMS.has(route.method) ? bodyObject(body) : {};
  if (PUSH_CONFIG_ROUTES.has(route.method)) {
    if (route.taskId !== undefined) params.taskId = route.taskId;
    if (route.configId !== undefined) params.id = route.configId;
  } else if (route.taskId !== undefined) {
    params.id = route.taskId;
  }
  for (const name of QUERY_PARAMS[route.method] ?? []) {
    const value = route.query.get(name);
    if (value !== null) params[name] = queryValue(name, value);
  }
  return params;
}

function queryValue(name: string, value: string): unknown {
  if (INTEGER_QUERY.has(name) && /^-?\d{1,15}$/.test(value)) return Number(value);
  if (BOOLEAN_QUERY.has(name) && (value === "true" || value === "false")) return value === "true";
  return value;
}

/** The JSON body of a request, which must be an object (bounded in depth like a JSON-RPC body). */
function bodyObject(body: string): Record<string, unknown> {
  if (exceedsNestingDepth(body, A2A_LIMITS.nestingDepth)) {
    throw new InvalidRequestError(`Invalid request: JSON nested deeper than ${A2A_LIMITS.nestingDepth} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new ParseError();
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidRequestError("Invalid request: the body must be a JSON object");
  }
  return value as Record<string, unknown>;
}
