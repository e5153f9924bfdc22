/**
 * Whether params sent without A2A-Version can only be A2A v1.0 by their shape (docs/interop.md, "A
 * request without A2A-Version"), one test per params shape; the method table says which method uses
 * which. Anything ambiguous stays v0.3, as A2A says.
 */

type Params = Record<string, unknown>;

/** A start whose message has a `ROLE_*` role, or parts all without `kind`, and nothing of v0.3. */
export function isV1StartShape(params: Params): boolean {
  return isV1Message(params.message);
}

/** A listing by a `TASK_STATE_*` status. */
export function isV1ListTasksShape(params: Params): boolean {
  return typeof params.status === "string" && params.status.startsWith("TASK_STATE_");
}

/** A config created flat (`url` beside `taskId`, no v0.3 `pushNotificationConfig`). */
export function isV1CreatePushShape(params: Params): boolean {
  return "url" in params && !("pushNotificationConfig" in params);
}

/** A config read, listed or deleted by `taskId` (v0.3 names the task `id`). */
export function isV1PushRefShape(params: Params): boolean {
  return "taskId" in params && !("pushNotificationConfigId" in params);
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
