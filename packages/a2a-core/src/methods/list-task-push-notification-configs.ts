import type { PushConfig } from "../ports/push-configs.js";
import { TaskNotFoundError } from "../protocol/errors.js";
import { ListPushConfigsParams } from "../protocol/schemas/push-config.js";
import type { UnaryMethod } from "./method.js";
import { pushSideOf } from "./support/push-configs.js";

/** ListTaskPushNotificationConfigs (`tasks/pushNotificationConfig/list`): a task's configs, oldest first. */
export const listTaskPushNotificationConfigs: UnaryMethod<typeof ListPushConfigsParams, PushConfig[]> = {
  name: "ListTaskPushNotificationConfigs",
  streaming: false,
  params: ListPushConfigsParams,
  async run(runtime, { params, caller, trace }) {
    const push = pushSideOf(runtime, "ListTaskPushNotificationConfigs");
    runtime.telemetry.taskOf(trace, params.taskId);
    const configs = await push.configs.list(caller.workspaceId, params.taskId);
    if (configs === undefined) throw TaskNotFoundError.forTask(params.taskId);
    return configs;
  },
  render: (dialect, configs) => dialect.pushConfigList(configs),
};
