import { A2A_LIMITS } from "@a2a-partner/a2a-core";
import { z } from "zod";
import { InvalidResponseError } from "../errors.js";

/** How the server authenticates itself to your receiver: it sends `Authorization: <scheme> <credentials>`. */
export interface PushNotificationAuthentication {
  /** An HTTP authentication scheme, e.g. `Bearer` or `Basic`. */
  scheme: string;
  /** What follows the scheme in `Authorization` (a token, base64 user:password …). */
  credentials?: string;
}

/** Where a task's events are pushed, as you create it. */
export interface PushNotificationConfigInput {
  /** Unique within the task. Default: the task's id, so creating it again replaces it rather than adding one. */
  id?: string;
  /** Your receiver: an `http:` or `https:` URL the server can reach (private addresses are refused). */
  url: string;
  /** Sent back with every notification as `X-A2A-Notification-Token`. */
  token?: string;
  /** How the server authenticates itself to your receiver. */
  authentication?: PushNotificationAuthentication;
}

/** A task's push config as the server holds it: the same shape over both bindings and both dialects. */
export interface TaskPushNotificationConfig {
  /** The task whose events are pushed. */
  taskId: string;
  /** Unique within the task (the task's own id when none was given). */
  id: string;
  /** The receiver the events are POSTed to. */
  url: string;
  /** Sent as `X-A2A-Notification-Token`. */
  token?: string;
  /** Sent as `Authorization: <scheme> <credentials>`. */
  authentication?: PushNotificationAuthentication;
}

/** The v0.3 `PushNotificationConfig` (and a v1.0 config's fields, less taskId, once mapped). */
const PushConfigV03 = z.object({
  id: z.string().optional(),
  url: z.string(),
  token: z.string().optional(),
  authentication: z.object({ schemes: z.array(z.string()), credentials: z.string().optional() }).optional(),
});
type PushConfigV03 = z.infer<typeof PushConfigV03>;

/** The v0.3 `TaskPushNotificationConfig`: the shape the client reads every answer in (see push-v1.ts). */
const TaskPushConfigV03 = z.object({ taskId: z.string(), pushNotificationConfig: PushConfigV03 });

/**
 * A config as the v0.3 wire carries it, after checking what the server would refuse anyway (a plain
 * TypeError naming the field, before any request, like the client's other arguments).
 */
export function pushConfigParams(input: PushNotificationConfigInput, what: string): PushConfigV03 {
  if (!input || typeof input !== "object") throw new TypeError(`${what} must be an object with a url`);
  const { id, url, token, authentication } = input;
  if (typeof url !== "string" || !/^https?:$/.test(URL.parse(url)?.protocol ?? "")) {
    throw new TypeError(`${what}.url must be an absolute http: or https: URL`);
  }
  if (url.length > A2A_LIMITS.pushUrlLength) {
    throw new TypeError(`${what}.url must be at most ${A2A_LIMITS.pushUrlLength} characters`);
  }
  if (id !== undefined) boundedString(id, `${what}.id`, A2A_LIMITS.idLength);
  if (token !== undefined) boundedString(token, `${what}.token`, A2A_LIMITS.pushSecretLength);
  if (authentication !== undefined) {
    if (!authentication || typeof authentication !== "object") {
      throw new TypeError(`${what}.authentication must be { scheme, credentials? }`);
    }
    boundedString(authentication.scheme, `${what}.authentication.scheme`, 64);
    if (authentication.credentials !== undefined) {
      boundedString(authentication.credentials, `${what}.authentication.credentials`, A2A_LIMITS.pushSecretLength);
    }
  }
  return {
    ...(id !== undefined ? { id } : {}),
    url,
    ...(token !== undefined ? { token } : {}),
    ...(authentication
      ? {
          authentication: {
            schemes: [authentication.scheme],
            ...(authentication.credentials !== undefined ? { credentials: authentication.credentials } : {}),
          },
        }
      : {}),
  };
}

/** A v0.3 `TaskPushNotificationConfig` answer → the client's config; anything else is an InvalidResponseError. */
export function parsePushConfig(value: unknown): TaskPushNotificationConfig {
  const parsed = TaskPushConfigV03.safeParse(value);
  if (!parsed.success) throw new InvalidResponseError("The server's result is not a TaskPushNotificationConfig");
  const { taskId, pushNotificationConfig: config } = parsed.data;
  const scheme = config.authentication?.schemes[0];
  return {
    taskId,
    // A2A: a config created without an id has the task's id.
    id: config.id || taskId,
    url: config.url,
    ...(config.token !== undefined ? { token: config.token } : {}),
    ...(scheme !== undefined
      ? {
          authentication: {
            scheme,
            ...(config.authentication?.credentials !== undefined
              ? { credentials: config.authentication.credentials }
              : {}),
          },
        }
      : {}),
  };
}

function boundedString(value: unknown, name: string, max: number): void {
  if (typeof value !== "string" || value.length === 0) throw new TypeError(`${name} must be a non-empty string`);
  if (value.length > max) throw new TypeError(`${name} must be at most ${max} characters`);
}
