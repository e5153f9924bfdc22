import { TaskNotFoundError } from "../protocol/errors.js";
import { GetPushConfigParams, type TaskPushNotificationConfigV03 } from "../protocol/schemas/push-config.js";
import type { UnaryMethod } from "./method.js";
import { configNotFound, pushSideOf, wireConfig } from "./support/push-configs.js";

/**
 * GetTaskPushNotificationConfig (`tasks/pushNotificationConfig/get`): one config of one of the caller's
 * tasks; without a config id, the one with the task's id (what a create without an id made).
 */
export const getTaskPushNotificationConfig: UnaryMethod<typeof GetPushConfigParams, TaskPushNotificationConfigV03> = {
  name: "GetTaskPushNotificationConfig",
  streaming: false,
  params: GetPushConfigParams,
  async run(runtime, { params, caller, trace }) {
    const push = pushSideOf(runtime, "GetTaskPushNotificationConfig");
    runtime.telemetry.taskOf(trace, params.id);
    const configId = params.pushNotificationConfigId ?? params.id;
    const config = await push.configs.get(caller.workspaceId, params.id, configId);
    if (config) return wireConfig(config);
    // Which of the two is missing, for the message (both are -32001).
    if ((await push.configs.list(caller.workspaceId, params.id)) === undefined) {
      throw TaskNotFoundError.forTask(params.id);
    }
    throw configNotFound(params.id, configId);
  },
  render: (dialect, config) => dialect.pushConfig(config),
};
