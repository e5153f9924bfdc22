import { InvalidResponseError } from "../../errors.js";

/**
 * The push-config methods between the client's v0.3 shapes and A2A v1.0's (what @a2a-js/sdk 1.3.0 sends):
 * v0.3 nests the config (`{ taskId, pushNotificationConfig: { id, url, token, authentication: { schemes } } }`)
 * and names the task `id` in get/list/delete; v1.0 is flat (`{ taskId, id, url, token, authentication:
 * { scheme } }`), names the task `taskId` and the config `id`, and lists as `{ configs, nextPageToken }`.
 */

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
