import type { Message, TaskState } from "../schemas/a2a.js";
import { TASK_STATE_V1 } from "../schemas/a2a-v1.js";
import { fromV1StartConfiguration } from "./push-config-mapping.js";
import { fromV1Message, fromV1State, toV1Message } from "./v1-mapping.js";

/**
 * Request params between A2A v1.0 and the v0.3 shapes the handler checks, one function per params
 * shape: the server reads v1.0 requests with the `fromV1*` ones, the client writes them with the
 * `toV1*` ones. The method table (method-table.ts) says which method uses which; nothing here names a
 * method.
 */

type Params = Record<string, unknown>;

// ---- v1.0 → v0.3 (the server reading a request) ------------------------------------------------------

/** A start (`SendMessageRequest`): its message and its configuration's inline push config. */
export function fromV1StartParams(params: Params): Params {
  const message = params.message === undefined ? {} : { message: fromV1Message(params.message) };
  const configuration =
    params.configuration === undefined ? {} : { configuration: fromV1StartConfiguration(params.configuration) };
  return { ...params, ...message, ...configuration };
}

/** A task listing: `TASK_STATE_*` as the v0.3 state. */
export function fromV1ListTasksParams(params: Params): Params {
  return { ...params, status: fromV1State(params.status, "params.status") };
}

// ---- v0.3 → v1.0 (the client writing a request) ------------------------------------------------------

interface PushConfigInput {
  id?: string;
  url: string;
  token?: string;
  authentication?: { schemes: string[]; credentials?: string };
}

/** A start: v1.0's message, and `configuration.pushNotificationConfig` as `taskPushNotificationConfig`. */
export function toV1StartParams(params: Params): Params {
  if (!params.message) return params;
  const configuration = params.configuration as Params | undefined;
  const { pushNotificationConfig, ...rest } = configuration ?? {};
  return {
    ...params,
    message: toV1Message(params.message as Message),
    ...(pushNotificationConfig
      ? {
          configuration: {
            ...rest,
            taskPushNotificationConfig: toV1PushConfigInput(pushNotificationConfig as PushConfigInput),
          },
        }
      : {}),
  };
}

/** A task listing: its v0.3 state as `TASK_STATE_*`. */
export function toV1ListTasksParams(params: Params): Params {
  if (typeof params.status !== "string") return params;
  return { ...params, status: TASK_STATE_V1[params.status as TaskState] ?? params.status };
}

/** A config created: v0.3 nests it (`{ taskId, pushNotificationConfig }`), v1.0 is flat. */
export function toV1CreatePushParams(params: Params): Params {
  return { taskId: params.taskId, ...toV1PushConfigInput(params.pushNotificationConfig as PushConfigInput) };
}

/** A config read or deleted: v0.3 `{ id, pushNotificationConfigId }`, v1.0 `{ taskId, id }`. */
export function toV1PushRefParams(params: Params): Params {
  return { taskId: params.id, id: params.pushNotificationConfigId };
}

/** A task's configs listed: v0.3 names the task `id`, v1.0 `taskId`. */
export function toV1ListPushParams(params: Params): Params {
  return { taskId: params.id, ...(params.pageToken !== undefined ? { pageToken: params.pageToken } : {}) };
}

/** A v0.3 `PushNotificationConfig` in v1.0's flat shape (without taskId: a start's inline config has none yet). */
export function toV1PushConfigInput(config: PushConfigInput): Params {
  const { authentication, ...rest } = config;
  const scheme = authentication?.schemes[0];
  return {
    ...rest,
    ...(scheme !== undefined
      ? {
          authentication: {
            scheme,
            ...(authentication?.credentials !== undefined ? { credentials: authentication.credentials } : {}),
          },
        }
      : {}),
  };
}
