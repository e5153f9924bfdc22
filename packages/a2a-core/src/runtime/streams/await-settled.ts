import type { SseSink } from "../../ports/handler-response.js";
import type { TaskRecord } from "../../ports/task-records.js";
import type { SerialisedEvent, StreamRenderer } from "../../protocol/dialect/dialect.js";
import {
  isInterruptedState,
  isTerminalState,
  type Task,
  type TaskEventResult,
  type TaskState,
} from "../../protocol/schemas/a2a.js";
import type { A2ARuntime } from "../a2a-runtime.js";
import { BARE_FRAMES } from "../hub/live-event.js";
import { OFF_THE_TICK, TaskSubscription } from "./task-subscription.js";

/** Whether a blocking SendMessage answers with the task in this state: ended, or waiting on its caller. */
export function isSettledState(state: TaskState): boolean {
  return isTerminalState(state) || isInterruptedState(state);
}

// A waiter writes nothing: it only watches what the task's feed hands it.
const NO_SINK: SseSink = { write() {}, backlog: 0, end() {}, abort() {} };

/**
 * The task once it has ended or asks for input, or as it stands after `maxWaitMs`. It follows the task
 * through the hub like a stream does (from memory on the instance that runs it, from the log on any
 * other), so it answers on any instance; the task never depends on the wait (nothing cancels it when
 * the waiting request goes away).
 */
export function awaitSettled(runtime: A2ARuntime, record: TaskRecord, maxWaitMs: number): Promise<Task> {
  const { task, workspaceId } = record;
  if (isSettledState(task.status.state)) return Promise.resolve(task);
  return new Promise<void>((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    const renderer: StreamRenderer = {
      taskJson: () => "",
      messageJson: () => "",
      eventJson(event: SerialisedEvent) {
        // A `finished` event ends the subscription by itself; a status asking for input ends it here.
        if (interrupts(event.result)) queueMicrotask(() => subscription.end());
        return "";
      },
    };
    const subscription = new TaskSubscription(
      task.id,
      BARE_FRAMES,
      NO_SINK,
      runtime.backlogBounds,
      record.lastSeq,
      OFF_THE_TICK,
      (ended) => {
        clearTimeout(timer);
        runtime.hub.unsubscribe(ended);
        resolve();
      },
      renderer,
    );
    timer = setTimeout(() => subscription.end(), maxWaitMs);
    timer.unref?.();
    runtime.hub.subscribe(record, subscription, true);
  }).then(() => runtime.findTask(workspaceId, task.id).then((current) => current.task));
}

function interrupts(result: TaskEventResult): boolean {
  return "statusUpdate" in result && isInterruptedState(result.statusUpdate.status.state);
}
