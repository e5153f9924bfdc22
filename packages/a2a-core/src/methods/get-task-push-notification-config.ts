import type { PushConfig } from "../ports/push-configs.js";
import { TaskNotFoundError } from "../protocol/errors.js";
import { GetPushConfigParams } from "../protocol/schemas/push-config.js";
import { configNotFound, pushConfigMethod } from "./support/push-configs.js";

/**
 * GetTaskPushNotificationConfig (`tasks/pushNotificationConfig/get`): one config of one of the caller's
 * tasks; without a config id, the one with the task's id (what a create without an id made).
 */
export const getTaskPushNotificationConfig = pushConfigMethod<typeof GetPushConfigParams, PushConfig>({
  name: "GetTaskPushNotificationConfig",
  params: GetPushConfigParams,
  async run(push, { params, caller }) {
    const { taskId } = params;
    const configId = params.id ?? taskId;
    const config = await push.configs.get(caller.workspaceId, taskId, configId);
    if (config) return config;
    // Which of the two is missing, for the message (both are -32001).
    if ((await push.configs.list(caller.workspaceId, taskId)) === undefined) {
      throw TaskNotFoundError.forTask(taskId);
    }
    throw configNotFound(taskId, configId);
  },
  render: (dialect, config) => dialect.pushConfig(config),
});
