import type { PushConfig } from "../ports/push-configs.js";
import { InvalidParamsError, TaskNotFoundError } from "../protocol/errors.js";
import { CreatePushConfigParams } from "../protocol/schemas/push-config.js";
import { CREATED_CONFIG_FIELDS, destinationRefusal, newPushConfig, pushConfigMethod } from "./support/push-configs.js";

/**
 * CreateTaskPushNotificationConfig (`tasks/pushNotificationConfig/set`): creates a config of one of the
 * caller's tasks, or replaces the one with the same id. Every event the task commits from now on is
 * delivered to it; allowed on an ended task too (nothing more will be sent).
 */
export const createTaskPushNotificationConfig = pushConfigMethod<typeof CreatePushConfigParams, PushConfig>({
  name: "CreateTaskPushNotificationConfig",
  params: CreatePushConfigParams,
  async run(push, { params, caller, version }, runtime) {
    // The task first: a stranger's made-up task id is -32001 before its URL is looked at (or resolved).
    await runtime.findTask(caller.workspaceId, params.taskId);
    const { taskId: _taskId, metadata: _metadata, ...input } = params;
    const refused = await destinationRefusal(push, input, CREATED_CONFIG_FIELDS[version]);
    if (refused) throw refused;
    const config = newPushConfig(input, { taskId: params.taskId, version, now: runtime.now() });
    const stored = await push.configs.put(caller.workspaceId, config, push.maxConfigsPerTask);
    if (stored.kind === "task-not-found") throw TaskNotFoundError.forTask(params.taskId);
    if (stored.kind === "too-many") {
      throw InvalidParamsError.forField(
        "params.taskId",
        `the task already has ${push.maxConfigsPerTask} push notification configs, the most it may have; ` +
          "replace one (same id) or delete one first",
      );
    }
    return stored.config;
  },
  render: (dialect, config) => dialect.pushConfig(config),
});
