import { fromHttpJsonStatus, fromV1Error, type JsonRpcErrorObject, type MethodName } from "@a2a-partner/a2a-core";
import { jsonOrUndefined } from "./read-body.js";

/** One call as an HTTP+JSON request: the verb, the URL under the binding's base, the body of a POST. */
export interface HttpJsonRequest {
  verb: "GET" | "POST" | "DELETE";
  url: string;
  body?: string;
}

/**
 * The route of A2A v1.0's HTTP+JSON binding for a method, its params (in the v1.0 shapes) spread over
 * the path, the query and the body as the binding puts them (docs/interop.md, "The HTTP+JSON binding").
 */
export function httpJsonRequest(base: string, method: MethodName, params: Record<string, unknown>): HttpJsonRequest {
  const task = () => `${base}/tasks/${encodeURIComponent(String(params.id))}`;
  // The push-config routes as @a2a-js/sdk 1.3.0's REST transport uses them (v1.0 params: taskId, id).
  const configs = () => `${base}/tasks/${encodeURIComponent(String(params.taskId))}/pushNotificationConfigs`;
  const config = () => `${configs()}/${encodeURIComponent(String(params.id))}`;
  switch (method) {
    case "SendStreamingMessage":
      return { verb: "POST", url: `${base}/message:stream`, body: JSON.stringify(params) };
    case "SubscribeToTask":
      return { verb: "POST", url: `${task()}:subscribe` };
    case "CancelTask":
      return { verb: "POST", url: `${task()}:cancel` };
    case "GetTask":
      return { verb: "GET", url: `${task()}${query(params, ["historyLength"])}` };
    case "ListTasks":
      return { verb: "GET", url: `${base}/tasks${query(params, Object.keys(params))}` };
    case "CreateTaskPushNotificationConfig":
      return { verb: "POST", url: configs(), body: JSON.stringify(params) };
    case "GetTaskPushNotificationConfig":
      return { verb: "GET", url: config() };
    case "ListTaskPushNotificationConfigs":
      return { verb: "GET", url: `${configs()}${query(params, ["pageSize", "pageToken"])}` };
    case "DeleteTaskPushNotificationConfig":
      return { verb: "DELETE", url: config() };
    default:
      throw new TypeError(`${method} has no HTTP+JSON route in this client`);
  }
}

function query(params: Record<string, unknown>, names: readonly string[]): string {
  const search = new URLSearchParams();
  for (const name of names) {
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
