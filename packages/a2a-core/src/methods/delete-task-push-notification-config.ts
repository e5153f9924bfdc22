import { TaskNotFoundError } from "../protocol/errors.js";
import { DeletePushConfigParams } from "../protocol/schemas/push-config.js";
import type { UnaryMethod } from "./method.js";
import { pushSideOf } from "./support/push-configs.js";

/**
 * DeleteTaskPushNotificationConfig (`tasks/pushNotificationConfig/delete`): removes a config and its
 * undelivered notifications. Idempotent: deleting a config that is not there answers the same.
 */
export const deleteTaskPushNotificationConfig: UnaryMethod<typeof DeletePushConfigParams, void> = {
  name: "DeleteTaskPushNotificationConfig",
  streaming: false,
  params: DeletePushConfigParams,
  async run(runtime, { params, caller, trace }) {
    const push = pushSideOf(runtime, "DeleteTaskPushNotificationConfig");
    runtime.telemetry.taskOf(trace, params.taskId);
    const deleted = await push.configs.delete(caller.workspaceId, params.taskId, params.id);
    if (deleted === undefined) throw TaskNotFoundError.forTask(params.taskId);
  },
  render: (dialect) => dialect.empty(),
};
