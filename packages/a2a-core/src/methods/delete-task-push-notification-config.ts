import { TaskNotFoundError } from "../protocol/errors.js";
import { DeletePushConfigParams } from "../protocol/schemas/push-config.js";
import { pushConfigMethod } from "./support/push-configs.js";

/**
 * DeleteTaskPushNotificationConfig (`tasks/pushNotificationConfig/delete`): removes a config and its
 * undelivered notifications. Idempotent: deleting a config that is not there answers the same.
 */
export const deleteTaskPushNotificationConfig = pushConfigMethod<typeof DeletePushConfigParams, void>({
  name: "DeleteTaskPushNotificationConfig",
  params: DeletePushConfigParams,
  async run(push, { params, caller }) {
    const deleted = await push.configs.delete(caller.workspaceId, params.taskId, params.id);
    if (deleted === undefined) throw TaskNotFoundError.forTask(params.taskId);
  },
  render: (dialect) => dialect.empty(),
});
