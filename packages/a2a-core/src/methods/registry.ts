import type { METHODS, MethodName } from "../protocol/method-names.js";
import { cancelTask } from "./cancel-task.js";
import { createTaskPushNotificationConfig } from "./create-task-push-notification-config.js";
import { deleteTaskPushNotificationConfig } from "./delete-task-push-notification-config.js";
import { getExtendedAgentCard } from "./get-extended-agent-card.js";
import { getTask } from "./get-task.js";
import { getTaskPushNotificationConfig } from "./get-task-push-notification-config.js";
import { listTaskPushNotificationConfigs } from "./list-task-push-notification-configs.js";
import { listTasks } from "./list-tasks.js";
import type { MethodDefinition } from "./method.js";
import { sendMessage } from "./send-message.js";
import { sendStreamingMessage } from "./send-streaming-message.js";
import { subscribeToTask } from "./subscribe-to-task.js";

/**
 * Every method's module, keyed by its name in `METHODS` (the wire vocabulary: names, aliases, whether it
 * is implemented). The compiler holds the two together: an implemented method without a module here, or
 * a module for a name the vocabulary does not have, does not build. Adding a method is a line in
 * `METHODS`, a file in this folder and a line here; no binding changes.
 */
export const METHOD_REGISTRY: {
  readonly [K in MethodName]: (typeof METHODS)[K]["implemented"] extends true ? MethodDefinition : undefined;
} = {
  SendStreamingMessage: sendStreamingMessage,
  SubscribeToTask: subscribeToTask,
  GetTask: getTask,
  CancelTask: cancelTask,
  ListTasks: listTasks,
  SendMessage: sendMessage,
  GetExtendedAgentCard: getExtendedAgentCard,
  CreateTaskPushNotificationConfig: createTaskPushNotificationConfig,
  GetTaskPushNotificationConfig: getTaskPushNotificationConfig,
  ListTaskPushNotificationConfigs: listTaskPushNotificationConfigs,
  DeleteTaskPushNotificationConfig: deleteTaskPushNotificationConfig,
};
