import type { Task } from "../protocol/schemas/a2a.js";
import { GetTaskParams } from "../protocol/schemas/params.js";
import type { UnaryMethod } from "./method.js";
import { withHistoryLength } from "./support/history-length.js";

/** GetTask (`tasks/get`): the task's current snapshot, its history trimmed to `historyLength`. */
export const getTask: UnaryMethod<typeof GetTaskParams, Task> = {
  name: "GetTask",
  streaming: false,
  params: GetTaskParams,
  async run(runtime, { params, caller, trace }) {
    runtime.telemetry.taskOf(trace, params.id);
    const record = await runtime.findTask(caller.workspaceId, params.id);
    return withHistoryLength(record.task, params.historyLength);
  },
  render: (dialect, task) => dialect.task(task),
};
