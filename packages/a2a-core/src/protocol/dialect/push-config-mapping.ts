import type { z } from "zod";
import { InvalidParamsError } from "../errors.js";
import type { PushNotificationConfigV03, TaskPushNotificationConfigV03 } from "../schemas/push-config.js";
import {
  CreatePushConfigParamsV1,
  DeletePushConfigParamsV1,
  GetPushConfigParamsV1,
  InlinePushConfigV1,
  ListPushConfigsParamsV1,
  type ListPushConfigsResultV1,
  type TaskPushNotificationConfigV1,
} from "../schemas/push-config-v1.js";

/**
 * Push configs between the v1.0 wire shapes and the v0.3 shapes the handler works in. A v1.0 request is
 * checked in its own shape first (so a refusal names the field the client sent), then turned into the
 * v0.3 params, which the method's schema checks again.
 */

function parsed<T extends z.ZodType>(schema: T, value: unknown, field: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw InvalidParamsError.fromZod(result.error, field);
  return result.data;
}

type ConfigFieldsV1 = Pick<CreatePushConfigParamsV1, "id" | "url" | "token" | "authentication">;

function fromV1Config(config: ConfigFieldsV1): PushNotificationConfigV03 {
  const { scheme, credentials } = config.authentication ?? {};
  return {
    ...(config.id === undefined ? {} : { id: config.id }),
    url: config.url,
    ...(config.token === undefined ? {} : { token: config.token }),
    ...(scheme === undefined ? {} : { authentication: { schemes: [scheme], ...(credentials ? { credentials } : {}) } }),
  };
}

/** CreateTaskPushNotificationConfig's v1.0 params (flat) → v0.3 (`{ taskId, pushNotificationConfig }`). */
export function fromV1CreatePushParams(params: Record<string, unknown>): Record<string, unknown> {
  const config = parsed(CreatePushConfigParamsV1, params, "params");
  return { taskId: config.taskId, pushNotificationConfig: fromV1Config(config) };
}

/** A v1.0 config reference (`{ taskId, id? }`) → v0.3 (`{ id, pushNotificationConfigId? }`): the get params. */
export function fromV1GetPushParams(params: Record<string, unknown>): Record<string, unknown> {
  const { taskId, id } = parsed(GetPushConfigParamsV1, params, "params");
  return { id: taskId, ...(id === undefined ? {} : { pushNotificationConfigId: id }) };
}

/** The list params: v1.0 names the task `taskId`, v0.3 `id`. */
export function fromV1ListPushParams(params: Record<string, unknown>): Record<string, unknown> {
  return { id: parsed(ListPushConfigsParamsV1, params, "params").taskId };
}

/** The delete params: `{ taskId, id }` → `{ id, pushNotificationConfigId }`. */
export function fromV1DeletePushParams(params: Record<string, unknown>): Record<string, unknown> {
  const { taskId, id } = parsed(DeletePushConfigParamsV1, params, "params");
  return { id: taskId, pushNotificationConfigId: id };
}

/** A start's `configuration` in v1.0 → v0.3: `taskPushNotificationConfig` becomes `pushNotificationConfig`. */
export function fromV1StartConfiguration(configuration: unknown): unknown {
  if (typeof configuration !== "object" || configuration === null || Array.isArray(configuration)) {
    return configuration;
  }
  const { taskPushNotificationConfig: inline, ...rest } = configuration as Record<string, unknown>;
  if (inline === undefined || inline === null) return rest;
  const config = parsed(InlinePushConfigV1, inline, "params.configuration.taskPushNotificationConfig");
  return { ...rest, pushNotificationConfig: fromV1Config(config) };
}

export function toV1PushConfig(config: TaskPushNotificationConfigV03): TaskPushNotificationConfigV1 {
  const { id, url, token, authentication } = config.pushNotificationConfig;
  const scheme = authentication?.schemes[0];
  return {
    id,
    taskId: config.taskId,
    url,
    ...(token === undefined ? {} : { token }),
    ...(scheme === undefined
      ? {}
      : {
          authentication: {
            scheme,
            ...(authentication?.credentials === undefined ? {} : { credentials: authentication.credentials }),
          },
        }),
  };
}

export function toV1PushConfigList(configs: readonly TaskPushNotificationConfigV03[]): ListPushConfigsResultV1 {
  return { configs: configs.map(toV1PushConfig), nextPageToken: "" };
}
