import { TaskNotFoundError } from "../protocol/errors.js";
import { ListPushConfigsParams, type TaskPushNotificationConfigV03 } from "../protocol/schemas/push-config.js";
import type { UnaryMethod } from "./method.js";
import { pushSideOf, wireConfig } from "./support/push-configs.js";

/** ListTaskPushNotificationConfigs (`tasks/pushNotificationConfig/list`): a task's configs, oldest first. */
export const listTaskPushNotificationConfigs: UnaryMethod<
  typeof ListPushConfigsParams,
  TaskPushNotificationConfigV03[]
> = {
  name: "ListTaskPushNotificationConfigs",
  streaming: false,
  params: ListPushConfigsParams,
  async run(runtime, { params, caller, trace }) {
    const push = pushSideOf(runtime, "ListTaskPushNotificationConfigs");
    runtime.telemetry.taskOf(trace, params.id);
    const configs = await push.configs.list(caller.workspaceId, params.id);
    if (configs === undefined) throw TaskNotFoundError.forTask(params.id);
    return configs.map(wireConfig);
  },
  render: (dialect, configs) => dialect.pushConfigList(configs),
};
