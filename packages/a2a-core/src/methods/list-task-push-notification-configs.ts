import type { PushConfig } from "../ports/push-configs.js";
import { TaskNotFoundError } from "../protocol/errors.js";
import { ListPushConfigsParams } from "../protocol/schemas/push-config.js";
import { pushConfigMethod } from "./support/push-configs.js";

/** ListTaskPushNotificationConfigs (`tasks/pushNotificationConfig/list`): a task's configs, oldest first. */
export const listTaskPushNotificationConfigs = pushConfigMethod<typeof ListPushConfigsParams, PushConfig[]>({
  name: "ListTaskPushNotificationConfigs",
  params: ListPushConfigsParams,
  async run(push, { params, caller }) {
    const configs = await push.configs.list(caller.workspaceId, params.taskId);
    if (configs === undefined) throw TaskNotFoundError.forTask(params.taskId);
    return configs;
  },
  render: (dialect, configs) => dialect.pushConfigList(configs),
});
