import type { Task } from "../protocol/schemas/a2a.js";
import { SendMessageParams } from "../protocol/schemas/params.js";
import { awaitSettled } from "../runtime/streams/await-settled.js";
import type { UnaryMethod } from "./method.js";
import { withHistoryLength } from "./support/history-length.js";
import { startTask } from "./support/start-task.js";

/**
 * SendMessage (`message/send`): the same durable, idempotent start as SendStreamingMessage (a retry with
 * the same `messageId`, by either method, gets the same task), answered with the task once it has ended
 * or asks for input (`input-required`, `auth-required`), or at once when the client asks
 * (`returnImmediately`, v0.3 `blocking: false`). The wait is bounded by the handler's
 * `methods.sendMessage.maxWaitMs`: past it the answer is the task as it stands. The task never depends
 * on the wait: a client that goes away cancels nothing.
 */
export const sendMessage: UnaryMethod<typeof SendMessageParams, Task> = {
  name: "SendMessage",
  streaming: false,
  params: SendMessageParams,
  run(runtime, call) {
    const configuration = call.params.configuration;
    const historyLength = configuration?.historyLength;
    const immediately = configuration?.returnImmediately === true || configuration?.blocking === false;
    return startTask(runtime, call).then(({ record }) =>
      (immediately ? Promise.resolve(record.task) : awaitSettled(runtime, record, runtime.sendMessageWaitMs)).then(
        (task) => withHistoryLength(task, historyLength),
      ),
    );
  },
  // v1.0 answers a SendMessageResponse (`{ task }` or `{ message }`); v0.3 the Task itself.
  render: (dialect, task) => (dialect.version === "1.0" ? { task: dialect.task(task) } : dialect.task(task)),
};
