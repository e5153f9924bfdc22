import { TaskNotCancelableError } from "../protocol/errors.js";
import { isTerminalState, stateLabel, type Task } from "../protocol/schemas/a2a.js";
import { TaskIdParams } from "../protocol/schemas/params.js";
import type { UnaryMethod } from "./method.js";

/** CancelTask (`tasks/cancel`): ends a running task `canceled`; an ended task is -32002. */
export const cancelTask: UnaryMethod<typeof TaskIdParams, Task> = {
  name: "CancelTask",
  streaming: false,
  params: TaskIdParams,
  async run(runtime, { params, caller, trace }) {
    const { id } = params;
    runtime.telemetry.taskOf(trace, id);
    return runtime.telemetry.within(trace.span, async () => {
      const record = await runtime.findTask(caller.workspaceId, id);
      if (isTerminalState(record.task.status.state))
        throw TaskNotCancelableError.forTask(id, stateLabel(record.task.status.state));
      const finished = await runtime.runner.finish(record, "TASK_STATE_CANCELED", "Canceled at the partner's request.");
      if (!finished) {
        // Another writer ended the task between our read and our write.
        const after = await runtime.findTask(caller.workspaceId, id);
        throw TaskNotCancelableError.forTask(id, stateLabel(after.task.status.state));
      }
      runtime.runner.abortLocal(id);
      return (await runtime.findTask(caller.workspaceId, id)).task;
    });
  },
  render: (dialect, task) => dialect.task(task),
};
