import { z } from "zod";
import { A2A_LIMITS } from "../limits.js";
import { metadataIssues, wellFormedIssues } from "./bounds/request-bounds.js";
import { absentIfEmpty, checkedBy, Id, NO_NUL, RequestMetadata } from "./param-fields.js";

// Push notification configs as the methods check them (the model: A2A v1.0's flat config, its
// authentication with a list of schemes, as a stored `PushConfig` keeps it): the fields a partner sends,
// bounded, and the params of the four push-config methods. Each dialect checks its own shapes first
// (`push-config-v1.ts`, `../v0_3/push-config.ts`), so a refusal names the field the client sent.

const L = A2A_LIMITS;

/** An id that is stored and used in URLs: bounded, and text PostgreSQL can hold. */
export const StoredId = Id.refine(...NO_NUL);

/** Where `url` may not point: what `fetch` cannot send, so a config that names it could never be delivered. */
function urlProblem(value: string): string | undefined {
  if (!URL.canParse(value)) return "must be an absolute http: or https: URL";
  const url = new URL(value);
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be an absolute http: or https: URL";
  if (url.username !== "" || url.password !== "") {
    return "must not carry credentials in the URL (send them as authentication)";
  }
  return undefined;
}

/** The receiver's address: bounded; checked against the SSRF guard by the method (`checkDestination`). */
export const PushUrl = z
  .string()
  .max(L.pushUrlLength, `must be at most ${L.pushUrlLength} characters`)
  .refine(...NO_NUL)
  .superRefine((value, ctx) => {
    const problem = urlProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

// Sent as HTTP header values (X-A2A-Notification-Token, Authorization), so only what a header may carry.
const HEADER_SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/** A token or credentials: bounded, and sendable as a header value. */
export const PushSecret = z
  .string()
  .max(L.pushSecretLength, `must be at most ${L.pushSecretLength} characters`)
  .regex(HEADER_SAFE, "must be printable ASCII without leading or trailing spaces (it is sent as an HTTP header)");

/** At most this many `schemes`: they are alternatives, and only the first is used. */
export const PUSH_AUTH_SCHEMES_MAX = 8;

/** An HTTP authentication scheme (RFC 9110 token), e.g. `Bearer`. */
export const PushAuthScheme = z
  .string()
  .max(L.idLength, `must be at most ${L.idLength} characters`)
  .regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, "must be an HTTP authentication scheme such as Bearer");

/**
 * How the server authenticates itself to the receiver: `Authorization: <schemes[0]> <credentials>` (v0.3
 * sends a list of schemes, v1.0 one `scheme`: a list of one).
 */
export const PushAuthentication = z.object({
  schemes: z
    .array(PushAuthScheme)
    .min(1, "must name at least one scheme")
    .max(PUSH_AUTH_SCHEMES_MAX, `must name at most ${PUSH_AUTH_SCHEMES_MAX} schemes`),
  credentials: absentIfEmpty(PushSecret),
});

/** A config as a partner sends it (id optional: the task's id by default). */
export const PushConfigInput = z.object({
  id: absentIfEmpty(StoredId),
  url: PushUrl,
  token: absentIfEmpty(PushSecret),
  authentication: PushAuthentication.optional(),
});
export type PushConfigInput = z.infer<typeof PushConfigInput>;

/** params of CreateTaskPushNotificationConfig / tasks/pushNotificationConfig/set. */
export const CreatePushConfigParams = z
  .object({ taskId: StoredId, ...PushConfigInput.shape, metadata: RequestMetadata.optional() })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));
export type CreatePushConfigParams = z.infer<typeof CreatePushConfigParams>;

/** params of GetTaskPushNotificationConfig / …/get: without `id`, the config with the task's id. */
export const GetPushConfigParams = z
  .object({ taskId: StoredId, id: StoredId.optional(), metadata: RequestMetadata.optional() })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));
export type GetPushConfigParams = z.infer<typeof GetPushConfigParams>;

/** params of ListTaskPushNotificationConfigs / …/list. */
export const ListPushConfigsParams = z
  .object({ taskId: StoredId, metadata: RequestMetadata.optional() })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));
export type ListPushConfigsParams = z.infer<typeof ListPushConfigsParams>;

/** params of DeleteTaskPushNotificationConfig / …/delete. */
export const DeletePushConfigParams = z
  .object({ taskId: StoredId, id: StoredId, metadata: RequestMetadata.optional() })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));
export type DeletePushConfigParams = z.infer<typeof DeletePushConfigParams>;

/** A config as the methods answer it (a stored `PushConfig` without its bookkeeping), for a dialect to render. */
export interface TaskPushConfig {
  id: string;
  taskId: string;
  url: string;
  token?: string;
  authentication?: { schemes: string[]; credentials?: string };
}
