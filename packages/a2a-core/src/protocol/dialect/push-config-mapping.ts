import type { z } from "zod";
import { InvalidParamsError } from "../errors.js";
import type { PushConfigInput, TaskPushConfig } from "../schemas/push-config.js";
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
 * Push configs between the v1.0 wire shapes and what the methods check (the same flat config, its
 * authentication a list of schemes). A v1.0 request is checked in its own shape first (so a refusal names
 * the field the client sent), then turned into the method's params, which its schema checks again.
 */

function parsed<T extends z.ZodType>(schema: T, value: unknown, field: string): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw InvalidParamsError.fromZod(result.error, field);
  return result.data;
}

type ConfigFieldsV1 = Pick<CreatePushConfigParamsV1, "id" | "url" | "token" | "authentication">;

function fromV1Config(config: ConfigFieldsV1): PushConfigInput {
  const { scheme, credentials } = config.authentication ?? {};
  return {
    ...(config.id === undefined ? {} : { id: config.id }),
    url: config.url,
    ...(config.token === undefined ? {} : { token: config.token }),
    ...(scheme === undefined ? {} : { authentication: { schemes: [scheme], ...(credentials ? { credentials } : {}) } }),
  };
}

/** CreateTaskPushNotificationConfig's v1.0 params: one `scheme` becomes a list of one. */
export function fromV1CreatePushParams(params: Record<string, unknown>): Record<string, unknown> {
  const config = parsed(CreatePushConfigParamsV1, params, "params");
  return { taskId: config.taskId, ...fromV1Config(config) };
}

/** The get params (`{ taskId, id? }`), checked in their v1.0 shape. */
export function fromV1GetPushParams(params: Record<string, unknown>): Record<string, unknown> {
  const { taskId, id } = parsed(GetPushConfigParamsV1, params, "params");
  return { taskId, ...(id === undefined ? {} : { id }) };
}

/** The list params: one page only, so its paging fields are checked and dropped. */
export function fromV1ListPushParams(params: Record<string, unknown>): Record<string, unknown> {
  return { taskId: parsed(ListPushConfigsParamsV1, params, "params").taskId };
}

/** The delete params (`{ taskId, id }`), checked in their v1.0 shape. */
export function fromV1DeletePushParams(params: Record<string, unknown>): Record<string, unknown> {
  const { taskId, id } = parsed(DeletePushConfigParamsV1, params, "params");
  return { taskId, id };
}

/** A start's `configuration.taskPushNotificationConfig`, checked in its v1.0 shape. */
export function fromV1StartConfiguration(configuration: unknown): unknown {
  if (typeof configuration !== "object" || configuration === null || Array.isArray(configuration)) {
    return configuration;
  }
  const { taskPushNotificationConfig: inline, ...rest } = configuration as Record<string, unknown>;
  if (inline === undefined || inline === null) return rest;
  const config = parsed(InlinePushConfigV1, inline, "params.configuration.taskPushNotificationConfig");
  return { ...rest, taskPushNotificationConfig: fromV1Config(config) };
}

export function toV1PushConfig(config: TaskPushConfig): TaskPushNotificationConfigV1 {
  const { id, url, token, authentication } = config;
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

export function toV1PushConfigList(configs: readonly TaskPushConfig[]): ListPushConfigsResultV1 {
  return { configs: configs.map(toV1PushConfig), nextPageToken: "" };
}
