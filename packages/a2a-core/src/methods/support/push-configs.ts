import type { z } from "zod";
import type { PushConfig } from "../../ports/push-configs.js";
import type { Dialect } from "../../protocol/dialect/dialect.js";
import type { ProtocolVersion } from "../../protocol/dialect/protocol-version.js";
import { InvalidParamsError, PushNotificationNotSupportedError, TaskNotFoundError } from "../../protocol/errors.js";
import type { MethodName } from "../../protocol/method-table.js";
import type { PushConfigInput } from "../../protocol/schemas/push-config.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";
import type { PushSide } from "../../runtime/push/push-side.js";
import type { MethodCall, UnaryMethod } from "../method.js";
import { FOLLOW_A_TASK } from "./follow-hint.js";

/** Push notifications of the runtime; -32003 when they are off (invoke already answers so, unread). */
export function pushSideOf(runtime: A2ARuntime, method: string): PushSide {
  if (!runtime.push) throw PushNotificationNotSupportedError.forMethod(method, FOLLOW_A_TASK);
  return runtime.push;
}

/** A push-config method as its module declares it: `run` is given the push side. */
export interface PushConfigMethod<S extends z.ZodType<{ taskId: string }>, R> {
  name: MethodName;
  params: S;
  run(push: PushSide, call: MethodCall<z.infer<S>>, runtime: A2ARuntime): Promise<R>;
  render(dialect: Dialect, result: R): unknown;
}

/** What the four push-config methods share: push notifications on (-32003 otherwise), the task on the trace. */
export function pushConfigMethod<S extends z.ZodType<{ taskId: string }>, R>(
  method: PushConfigMethod<S, R>,
): UnaryMethod<S, R> {
  return {
    name: method.name,
    streaming: false,
    params: method.params,
    async run(runtime, call) {
      const push = pushSideOf(runtime, method.name);
      runtime.telemetry.taskOf(call.trace, call.params.taskId);
      return method.run(push, call, runtime);
    },
    render: method.render,
  };
}

/** Where a config's fields are in the request, by dialect: refusals name what the client sent. */
export interface PushConfigFields {
  /** The config object's path (`params.pushNotificationConfig` in v0.3, `params` in v1.0). */
  config: string;
}

export const CREATED_CONFIG_FIELDS: Readonly<Record<ProtocolVersion, PushConfigFields>> = {
  "0.3": { config: "params.pushNotificationConfig" },
  "1.0": { config: "params" },
};

export const INLINE_CONFIG_FIELDS: Readonly<Record<ProtocolVersion, PushConfigFields>> = {
  "0.3": { config: "params.configuration.pushNotificationConfig" },
  "1.0": { config: "params.configuration.taskPushNotificationConfig" },
};

/** Why the config's destination is refused (SSRF): -32602 on its url field, with the reason. */
export async function destinationRefusal(
  push: PushSide,
  input: PushConfigInput,
  fields: PushConfigFields,
): Promise<InvalidParamsError | undefined> {
  const refused = await push.checkDestination(new URL(input.url));
  return refused === undefined ? undefined : InvalidParamsError.forField(`${fields.config}.url`, refused);
}

/**
 * A partner's config (checked against its schema and `destinationRefusal`) as stored: its id the task's
 * when it names none (so a retried create replaces rather than adds, as the official SDKs do), made in
 * the request's version, whose shapes its receiver gets.
 */
export function newPushConfig(
  input: PushConfigInput,
  at: { taskId: string; version: ProtocolVersion; now: Date },
): PushConfig {
  return {
    id: input.id ?? at.taskId,
    taskId: at.taskId,
    url: input.url,
    ...(input.token === undefined ? {} : { token: input.token }),
    ...(input.authentication === undefined ? {} : { authentication: structuredClone(input.authentication) }),
    version: at.version,
    createdAt: at.now.toISOString(),
  };
}

/** -32001 for a config that is not there (its task is, in the caller's workspace). */
export function configNotFound(taskId: string, configId: string): TaskNotFoundError {
  return new TaskNotFoundError("Push notification config not found", {
    taskId: taskId.slice(0, 256),
    pushNotificationConfigId: configId.slice(0, 256),
  });
}
