import type { MethodName } from "@a2a-partner/a2a-core";
import { InvalidResponseError } from "../../errors.js";

/**
 * The push-config methods between the client's v0.3 shapes and A2A v1.0's (what @a2a-js/sdk 1.3.0 sends):
 * v0.3 nests the config (`{ taskId, pushNotificationConfig: { id, url, token, authentication: { schemes } } }`)
 * and names the task `id` in get/list/delete; v1.0 is flat (`{ taskId, id, url, token, authentication:
 * { scheme } }`), names the task `taskId` and the config `id`, and lists as `{ configs, nextPageToken }`.
 */

type Params = Record<string, unknown>;

interface PushConfigV03Shape {
  id?: string;
  url: string;
  token?: string;
  authentication?: { schemes: string[]; credentials?: string };
}

/** The v1.0 params of a push-config method, from its v0.3 params; undefined for any other method. */
export function pushParamsV1(method: MethodName, params: Params): Params | undefined {
  switch (method) {
    case "CreateTaskPushNotificationConfig":
      return { taskId: params.taskId, ...toV1PushConfig(params.pushNotificationConfig as PushConfigV03Shape) };
    case "GetTaskPushNotificationConfig":
    case "DeleteTaskPushNotificationConfig":
      return { taskId: params.id, id: params.pushNotificationConfigId };
    case "ListTaskPushNotificationConfigs":
      return { taskId: params.id, ...(params.pageToken !== undefined ? { pageToken: params.pageToken } : {}) };
    default:
      return undefined;
  }
}

/** A v0.3 `PushNotificationConfig` in v1.0's flat shape (without taskId: a start's inline config has none yet). */
export function toV1PushConfig(config: PushConfigV03Shape): Params {
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

/** A v1.0 `TaskPushNotificationConfig` result in the v0.3 shape (checked by the caller). */
export function fromV1PushConfig(result: unknown): unknown {
  if (!isRecord(result)) return result;
  const { taskId, tenant: _tenant, authentication, ...config } = result;
  const scheme = isRecord(authentication) ? authentication.scheme : undefined;
  return {
    taskId,
    pushNotificationConfig: {
      ...config,
      ...(isRecord(authentication)
        ? {
            authentication: {
              schemes: typeof scheme === "string" && scheme !== "" ? [scheme] : [],
              ...(authentication.credentials !== undefined ? { credentials: authentication.credentials } : {}),
            },
          }
        : {}),
    },
  };
}

/** One page of configs, whichever dialect answered: v0.3 a bare array, v1.0 `{ configs, nextPageToken }`. */
export interface PushConfigPage {
  configs: unknown[];
  /** "" on the last page (and always in v0.3, which does not page). */
  nextPageToken: string;
}

export function pushConfigPageV03(result: unknown): PushConfigPage {
  if (!Array.isArray(result)) throw new InvalidResponseError("The server's result is not a list of push configs");
  return { configs: result, nextPageToken: "" };
}

export function pushConfigPageV1(result: unknown): PushConfigPage {
  // ProtoJSON leaves out an empty list and an empty token.
  const page = isRecord(result) ? result : undefined;
  const configs = page?.configs ?? [];
  const token = page?.nextPageToken ?? "";
  if (!page || !Array.isArray(configs) || typeof token !== "string") {
    throw new InvalidResponseError("The server's result is not a v1.0 ListTaskPushNotificationConfigsResponse");
  }
  return { configs: configs.map(fromV1PushConfig), nextPageToken: token };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
