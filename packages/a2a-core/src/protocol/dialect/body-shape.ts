import type { MethodName } from "../method-names.js";

/**
 * Whether a request that names no version can only be A2A v1.0 by its params (docs/interop.md, "A request
 * without A2A-Version"): a start whose message has a `ROLE_*` role, or parts that are all without `kind`
 * (v0.3 requires it on every part), and nothing of v0.3 (a `user`/`agent` role, a part with `kind`);
 * ListTasks with a `TASK_STATE_*` status; a push config created flat (`url` beside `taskId`, no v0.3
 * `pushNotificationConfig`), or read, listed or deleted by `taskId` (v0.3 names the task `id`). Anything
 * else, ambiguous or not, stays v0.3, as A2A says.
 */
export function onlyV1ByShape(method: MethodName, params: Record<string, unknown>): boolean {
  switch (method) {
    case "SendStreamingMessage":
    case "SendMessage":
      return isV1Message(params.message);
    case "ListTasks":
      return typeof params.status === "string" && params.status.startsWith("TASK_STATE_");
    case "CreateTaskPushNotificationConfig":
      return "url" in params && !("pushNotificationConfig" in params);
    case "GetTaskPushNotificationConfig":
    case "ListTaskPushNotificationConfigs":
    case "DeleteTaskPushNotificationConfig":
      return "taskId" in params && !("pushNotificationConfigId" in params);
    default:
      return false;
  }
}

function isV1Message(message: unknown): boolean {
  if (typeof message !== "object" || message === null) return false;
  const { role, parts } = message as { role?: unknown; parts?: unknown };
  if (role === "user" || role === "agent") return false;
  const v1Role = typeof role === "string" && role.startsWith("ROLE_");
  if (!Array.isArray(parts)) return v1Role;
  for (const part of parts) {
    if (typeof part === "object" && part !== null && "kind" in part) return false;
  }
  return v1Role || parts.length > 0;
}
