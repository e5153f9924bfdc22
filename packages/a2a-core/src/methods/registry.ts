import type { MethodName } from "../protocol/method-table.js";
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
 * The methods this handler implements, each a module that names itself; a name of the method table
 * without a module here answers UnsupportedOperationError. Adding a method is its row in the table
 * (protocol/method-table.ts), its module in this folder and its line here; no binding changes.
 */
const MODULES: readonly MethodDefinition[] = [
  sendStreamingMessage,
  subscribeToTask,
  getTask,
  cancelTask,
  listTasks,
  sendMessage,
  getExtendedAgentCard,
  createTaskPushNotificationConfig,
  getTaskPushNotificationConfig,
  listTaskPushNotificationConfigs,
  deleteTaskPushNotificationConfig,
];

export const METHOD_REGISTRY: ReadonlyMap<MethodName, MethodDefinition> = new Map(
  MODULES.map((definition) => [definition.name, definition]),
);
