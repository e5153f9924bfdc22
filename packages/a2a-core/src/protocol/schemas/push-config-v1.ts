import { z } from "zod";
import { wellFormedIssues } from "./bounds/request-bounds.js";
import { absentIfEmpty, checkedBy } from "./param-fields.js";
import { PushAuthScheme, PushSecret, PushUrl, StoredId } from "./push-config.js";

// Push notification configs in the A2A v1.0 shapes (ProtoJSON of `TaskPushNotificationConfig`, flat, with a
// single `authentication.scheme`), as the official clients send them over JSON-RPC and HTTP+JSON. Same
// bounds as the v0.3 shapes, so a refusal names the field the client sent. "" means "not given".

/** v1.0 `AuthenticationInfo`: `Authorization: <scheme> <credentials>`. */
const AuthenticationInfoV1 = z
  .object({ scheme: absentIfEmpty(PushAuthScheme), credentials: absentIfEmpty(PushSecret) })
  .superRefine((value, ctx) => {
    if (value.credentials !== undefined && value.scheme === undefined) {
      ctx.addIssue({ code: "custom", path: ["scheme"], message: "is required with credentials" });
    }
  });

const CONFIG_FIELDS = {
  id: absentIfEmpty(StoredId),
  url: PushUrl,
  token: absentIfEmpty(PushSecret),
  authentication: AuthenticationInfoV1.optional(),
};

/** params of CreateTaskPushNotificationConfig (a `TaskPushNotificationConfig`; HTTP+JSON: the body). */
export const CreatePushConfigParamsV1 = z
  .object({ taskId: StoredId, ...CONFIG_FIELDS })
  .superRefine(checkedBy(wellFormedIssues));
export type CreatePushConfigParamsV1 = z.infer<typeof CreatePushConfigParamsV1>;

/**
 * `configuration.taskPushNotificationConfig` of a task start: its `taskId` is not known yet (the server
 * makes it), so whatever it says is ignored.
 */
export const InlinePushConfigV1 = z.object({ taskId: z.unknown().optional(), ...CONFIG_FIELDS });
export type InlinePushConfigV1 = z.infer<typeof InlinePushConfigV1>;

/** params of GetTaskPushNotificationConfig: without `id`, the config with the task's id. */
export const GetPushConfigParamsV1 = z
  .object({ taskId: StoredId, id: absentIfEmpty(StoredId) })
  .superRefine(checkedBy(wellFormedIssues));

/** params of DeleteTaskPushNotificationConfig. */
export const DeletePushConfigParamsV1 = z
  .object({ taskId: StoredId, id: StoredId })
  .superRefine(checkedBy(wellFormedIssues));

/** params of ListTaskPushNotificationConfigs: a task has few configs, so there is only ever one page. */
export const ListPushConfigsParamsV1 = z
  .object({
    taskId: StoredId,
    pageSize: z.number().int().min(0, "must not be negative").optional(),
    pageToken: absentIfEmpty(z.string().max(0, "is not a page token of this server (there is only one page)")),
  })
  .superRefine(checkedBy(wellFormedIssues));

/** A config as v1.0 answers it (Create, Get, and each of List's). */
export interface TaskPushNotificationConfigV1 {
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

/** ListTaskPushNotificationConfigs' answer. */
export interface ListPushConfigsResultV1 {
  configs: TaskPushNotificationConfigV1[];
  nextPageToken: string;
}
