import type { MethodName } from "@a2a-partner/a2a-core";
import { InvalidResponseError } from "../errors.js";
import type { WireDialect } from "../internal/dialect/wire-dialect.js";
import type { RequestOptions } from "../options.js";
import {
  type PushNotificationConfigInput,
  parsePushConfig,
  pushConfigParams,
  type TaskPushNotificationConfig,
} from "./push-config.js";

/**
 * Sends one call with its params in the v0.3 shape (the dialect in use converts them) and resolves with
 * the raw result and the dialect it is to be read in.
 */
export type DialectCall = (
  method: MethodName,
  params: Record<string, unknown>,
  options: RequestOptions,
) => Promise<{ result: unknown; dialect: WireDialect }>;

/** The four push-config methods over whichever binding and dialect the client speaks (A2AClient's). */
export async function createPushConfig(
  call: DialectCall,
  taskId: string,
  config: PushNotificationConfigInput,
  options: RequestOptions,
): Promise<TaskPushNotificationConfig> {
  requireId(taskId, "taskId");
  const params = { taskId, pushNotificationConfig: pushConfigParams(config, "config") };
  return oneConfig(call("CreateTaskPushNotificationConfig", params, options), taskId);
}

export async function getPushConfig(
  call: DialectCall,
  taskId: string,
  configId: string,
  options: RequestOptions,
): Promise<TaskPushNotificationConfig> {
  return oneConfig(call("GetTaskPushNotificationConfig", configParams(taskId, configId), options), taskId);
}

/** Every config of the task, oldest first; follows v1.0 pages until the last. */
export async function listPushConfigs(
  call: DialectCall,
  taskId: string,
  options: RequestOptions,
): Promise<TaskPushNotificationConfig[]> {
  requireId(taskId, "taskId");
  const configs: TaskPushNotificationConfig[] = [];
  let pageToken: string | undefined;
  for (;;) {
    const params = { id: taskId, ...(pageToken ? { pageToken } : {}) };
    const { result, dialect } = await call("ListTaskPushNotificationConfigs", params, options);
    const page = dialect.pushConfigPage(result);
    for (const config of page.configs) configs.push(checkedConfig(config, taskId));
    if (page.nextPageToken === "") return configs;
    // A server that hands back the token it was given would make this loop forever.
    if (page.nextPageToken === pageToken) {
      throw new InvalidResponseError("The server returned the same nextPageToken twice");
    }
    pageToken = page.nextPageToken;
  }
}

export async function deletePushConfig(
  call: DialectCall,
  taskId: string,
  configId: string,
  options: RequestOptions,
): Promise<void> {
  await call("DeleteTaskPushNotificationConfig", configParams(taskId, configId), options);
}

/** The params naming one config of a task (Get, Delete), its ids checked first. */
function configParams(taskId: string, configId: string): Record<string, unknown> {
  requireId(taskId, "taskId");
  requireId(configId, "configId");
  return { id: taskId, pushNotificationConfigId: configId };
}

/** The one config a call answers with (Create, Get), checked to be of the task asked about. */
async function oneConfig(answer: ReturnType<DialectCall>, taskId: string): Promise<TaskPushNotificationConfig> {
  const { result, dialect } = await answer;
  return checkedConfig(dialect.pushConfig(result), taskId);
}

/**
 * The config, which must be of the task asked about (an answer about another task is not ours to use).
 * ProtoJSON may leave out an empty `taskId`: then it is the task asked about.
 */
function checkedConfig(value: unknown, taskId: string): TaskPushNotificationConfig {
  const record = typeof value === "object" && value !== null ? (value as Record<string, unknown>) : undefined;
  const config = parsePushConfig(record && !record.taskId ? { ...record, taskId } : value);
  if (config.taskId !== taskId) {
    throw new InvalidResponseError(`The server answered with a push config of task ${config.taskId}, not ${taskId}`);
  }
  return config;
}

function requireId(value: unknown, name: string): asserts value is string {
  if (typeof value !== "string" || value.length === 0) throw new TypeError(`${name} must be a non-empty string`);
}
