import { InvalidParamsError } from "../errors.js";
import { TASK_STATES } from "../schemas/a2a.js";
import { fromV03Message, STATE_FROM_V03 } from "../v0_3/mapping.js";
import type { MessageV03, TaskStateV03 } from "../v0_3/schemas.js";
import { fromV1StartConfiguration } from "./push-config-mapping.js";

/**
 * Request params between A2A v1.0's wire and what the methods check, one function per params shape:
 * the server reads v1.0 requests with the `fromV1*` ones (the model is v1.0: only the push configs,
 * still in their v0.3 shapes inside, are mapped), the client writes them from its v0.3 shapes with the
 * `toV1*` ones. The method table (method-table.ts) says which method uses which; nothing here names a
 * method.
 */

type Params = Record<string, unknown>;

const STATE_NAMES = TASK_STATES.join(", ");

// ---- v1.0 → the model (the server reading a request) --------------------------------------------------

/** A start (`SendMessageRequest`): its configuration's inline push config. */
export function fromV1StartParams(params: Params): Params {
  if (params.configuration === undefined) return params;
  return { ...params, configuration: fromV1StartConfiguration(params.configuration) };
}

/** A task listing: "" and TASK_STATE_UNSPECIFIED mean no status filter. */
export function fromV1ListTasksParams(params: Params): Params {
  const { status } = params;
  if (status === undefined || status === null || status === "") return params;
  if (status === "TASK_STATE_UNSPECIFIED") {
    const { status: _none, ...rest } = params;
    return rest;
  }
  if (typeof status !== "string" || !(TASK_STATES as readonly string[]).includes(status)) {
    throw InvalidParamsError.forField("params.status", `must be one of ${STATE_NAMES}`);
  }
  return params;
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
    message: fromV03Message(params.message as MessageV03),
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
  return { ...params, status: STATE_FROM_V03[params.status as TaskStateV03] ?? params.status };
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
