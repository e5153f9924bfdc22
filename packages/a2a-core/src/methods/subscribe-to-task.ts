import { UnsupportedOperationError } from "../protocol/errors.js";
import { isTerminalState, stateLabel } from "../protocol/schemas/a2a.js";
import { TaskIdParams } from "../protocol/schemas/params.js";
import { getTask } from "./get-task.js";
import type { StreamingMethod } from "./method.js";
import { reattachCursor } from "./support/reattach-cursor.js";

/**
 * SubscribeToTask (`tasks/resubscribe`): the task, then every event after `Last-Event-ID` (without it,
 * only new ones), then live events until `final`.
 */
export const subscribeToTask: StreamingMethod<typeof TaskIdParams> = {
  name: "SubscribeToTask",
  streaming: true,
  params: TaskIdParams,
  async run(runtime, { params, caller, headers, version, trace }) {
    runtime.telemetry.taskOf(trace, params.id);
    const record = await runtime.findTask(caller.workspaceId, params.id);
    const afterSeq = reattachCursor(record, headers);
    // A2A v1.0 refuses to subscribe to an ended task, unless the caller resumes from before its end (a
    // dropped stream's Last-Event-ID): what it missed, the end included, is replayed, so no resume loses
    // events. The v0.3 dialect replays task, finished, final in any case.
    if (version === "1.0" && isTerminalState(record.task.status.state) && afterSeq >= record.lastSeq) {
      throw new UnsupportedOperationError(
        `Task ${params.id} has already ended (${stateLabel(record.task.status.state)}); read it with ${getTask.name}`,
        { taskId: params.id, state: stateLabel(record.task.status.state) },
      );
    }
    return { record, afterSeq };
  },
};
