import { z } from "zod";
import { InvalidParamsError } from "../errors.js";
import { metadataIssues, wellFormedIssues } from "../schemas/bounds/request-bounds.js";
import { checkedBy, RequestMetadata } from "../schemas/param-fields.js";
import { PushConfigInput, StoredId, type TaskPushConfig } from "../schemas/push-config.js";

// Push notification configs in A2A v0.3's shapes: a config nested in `pushNotificationConfig`, a task
// named `id` and a config `pushNotificationConfigId`. Checked here in their own shape (so a refusal names
// the v0.3 field), then turned into the params the methods check.

type Params = Record<string, unknown>;

/**
 * A2A v0.3 `PushNotificationConfig` as a partner sends it (id optional: the task's id by default): the
 * model's config input exactly (only where v0.3 puts it differs).
 */
export const PushNotificationConfigV03 = PushConfigInput;
export type PushNotificationConfigV03 = PushConfigInput;

/** A2A v0.3 `TaskPushNotificationConfig`: what set, get and list answer (and set takes). */
export interface TaskPushNotificationConfigV03 {
  taskId: string;
  pushNotificationConfig: {
    id: string;
    url: string;
    token?: string;
    authentication?: { schemes: string[]; credentials?: string };
  };
}

const SetPushConfigParamsV03 = z
  .object({ taskId: StoredId, pushNotificationConfig: PushNotificationConfigV03, metadata: RequestMetadata.optional() })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));

const ConfigRefParamsV03 = z
  .object({ id: StoredId, pushNotificationConfigId: StoredId.optional(), metadata: RequestMetadata.optional() })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));

const DeleteParamsV03 = z
  .object({ id: StoredId, pushNotificationConfigId: StoredId, metadata: RequestMetadata.optional() })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));

function parsed<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value);
  if (!result.success) throw InvalidParamsError.fromZod(result.error, "params");
  return result.data;
}

const withMetadata = (metadata: Params | undefined) => (metadata === undefined ? {} : { metadata });

/** tasks/pushNotificationConfig/set: `{ taskId, pushNotificationConfig }` → the flat config. */
export function fromV03CreatePushParams(params: Params): Params {
  const { taskId, pushNotificationConfig, metadata } = parsed(SetPushConfigParamsV03, params);
  return { taskId, ...pushNotificationConfig, ...withMetadata(metadata) };
}

/** …/get: `{ id, pushNotificationConfigId? }` → `{ taskId, id? }`. */
export function fromV03GetPushParams(params: Params): Params {
  const { id, pushNotificationConfigId, metadata } = parsed(ConfigRefParamsV03, params);
  return {
    taskId: id,
    ...(pushNotificationConfigId === undefined ? {} : { id: pushNotificationConfigId }),
    ...withMetadata(metadata),
  };
}

/** …/list: the task named `id` → `taskId`. */
export function fromV03ListPushParams(params: Params): Params {
  const { id, metadata } = parsed(ConfigRefParamsV03, params);
  return { taskId: id, ...withMetadata(metadata) };
}

/** …/delete: `{ id, pushNotificationConfigId }` → `{ taskId, id }`. */
export function fromV03DeletePushParams(params: Params): Params {
  const { id, pushNotificationConfigId, metadata } = parsed(DeleteParamsV03, params);
  return { taskId: id, id: pushNotificationConfigId, ...withMetadata(metadata) };
}

/** A start's inline config (`configuration.pushNotificationConfig`) → the model's `taskPushNotificationConfig`. */
export function fromV03StartConfiguration(configuration: unknown): unknown {
  if (typeof configuration !== "object" || configuration === null || Array.isArray(configuration)) {
    return configuration;
  }
  const { pushNotificationConfig: inline, ...rest } = configuration as Params;
  if (inline === undefined || inline === null) return rest;
  const result = PushNotificationConfigV03.safeParse(inline);
  if (!result.success) throw InvalidParamsError.fromZod(result.error, "params.configuration.pushNotificationConfig");
  return { ...rest, taskPushNotificationConfig: result.data };
}

/** A stored config as v0.3 answers it. */
export function toV03PushConfig(config: TaskPushConfig): TaskPushNotificationConfigV03 {
  return {
    taskId: config.taskId,
    pushNotificationConfig: {
      id: config.id,
      url: config.url,
      ...(config.token === undefined ? {} : { token: config.token }),
      ...(config.authentication === undefined ? {} : { authentication: structuredClone(config.authentication) }),
    },
  };
}
