import type { MethodName } from "../../protocol/method-names.js";

/** A request the HTTP+JSON binding answers: the method its route names, the task id of the path, the query. */
export interface HttpJsonRoute {
  kind: "route";
  method: MethodName;
  /** The `{id}` of a `/tasks/{id}…` route, decoded. */
  taskId?: string;
  /** The `{configId}` of a `/tasks/{id}/pushNotificationConfigs/{configId}` route, decoded. */
  configId?: string;
  /** Whether the route takes a JSON body (the POST routes). */
  body: boolean;
  query: URLSearchParams;
}

/** A path of the binding asked with a verb it does not take: HTTP 405 with `Allow`. */
export interface HttpJsonWrongVerb {
  kind: "wrong-verb";
  allow: string;
}

/** A path under the binding's resources that names no route (a typo): HTTP 404. */
export interface HttpJsonNoRoute {
  kind: "no-route";
  path: string;
}

export type HttpJsonMatch = HttpJsonRoute | HttpJsonWrongVerb | HttpJsonNoRoute;

interface RouteEntry {
  /** Matches the end of the path (whatever it is mounted under, and a `/{tenant}` prefix). */
  pattern: RegExp;
  verbs: Readonly<Partial<Record<string, MethodName>>>;
}

// The routes of A2A v1.0's HTTP+JSON binding (a2a.proto's google.api.http annotations). SubscribeToTask
// is `GET` in the proto and `POST` in the specification's prose; both are answered.
const ROUTES: readonly RouteEntry[] = [
  { pattern: /\/message:stream$/, verbs: { POST: "SendStreamingMessage" } },
  { pattern: /\/message:send$/, verbs: { POST: "SendMessage" } },
  { pattern: /\/tasks\/([^/]+):subscribe$/, verbs: { POST: "SubscribeToTask", GET: "SubscribeToTask" } },
  { pattern: /\/tasks\/([^/]+):cancel$/, verbs: { POST: "CancelTask" } },
  { pattern: /\/tasks\/([^/:]+)$/, verbs: { GET: "GetTask" } },
  { pattern: /\/tasks$/, verbs: { GET: "ListTasks" } },
  { pattern: /\/extendedAgentCard$/, verbs: { GET: "GetExtendedAgentCard" } },
  {
    pattern: /\/tasks\/([^/]+)\/pushNotificationConfigs$/,
    verbs: { POST: "CreateTaskPushNotificationConfig", GET: "ListTaskPushNotificationConfigs" },
  },
  {
    pattern: /\/tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/,
    verbs: { GET: "GetTaskPushNotificationConfig", DELETE: "DeleteTaskPushNotificationConfig" },
  },
];

/**
 * The HTTP+JSON route a request names, by the end of its path, or undefined when the path is none of
 * the binding's (a JSON-RPC request, posted to the endpoint's own path). Matching the end keeps the
 * binding mountable under any prefix: JSON-RPC at `{base}`, HTTP+JSON at `{base}/message:send` and so on.
 */
export function matchHttpJsonRoute(verb: string, url: string): HttpJsonMatch | undefined {
  const queryAt = url.indexOf("?");
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  // The JSON-RPC endpoint's own path is never a route: one cheap test before any pattern.
  if (!path.includes("/message:") && !path.includes("/tasks") && !path.endsWith("/extendedAgentCard")) {
    return undefined;
  }
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (!match) continue;
    const method = route.verbs[verb];
    if (!method) return { kind: "wrong-verb", allow: Object.keys(route.verbs).join(", ") };
    const taskId = decoded(match[1]);
    const configId = decoded(match[2]);
    return {
      kind: "route",
      method,
      ...(taskId === undefined ? {} : { taskId }),
      ...(configId === undefined ? {} : { configId }),
      body: verb === "POST",
      query: new URLSearchParams(queryAt === -1 ? "" : url.slice(queryAt + 1)),
    };
  }
  // Under a binding resource but no route of it: answered by the binding, never read as JSON-RPC.
  return path.includes("/tasks/") || path.includes("/message:") ? { kind: "no-route", path } : undefined;
}

/** A path segment decoded; one that is not valid percent-encoding is taken as it is. */
function decoded(segment: string | undefined): string | undefined {
  if (segment === undefined) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
