import { getTask } from "../get-task.js";
import { subscribeToTask } from "../subscribe-to-task.js";

/** How a caller follows a task instead, named from the methods' own modules: "SubscribeToTask or GetTask". */
export const FOLLOW_A_TASK = `${subscribeToTask.name} or ${getTask.name}`;
