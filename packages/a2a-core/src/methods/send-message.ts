import type { Message, Task } from "../protocol/schemas/a2a.js";
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
export const sendMessage: UnaryMethod<typeof SendMessageParams, Task | Message> = {
  name: "SendMessage",
  streaming: false,
  params: SendMessageParams,
  run(runtime, call) {
    const configuration = call.params.configuration;
    const historyLength = configuration?.historyLength;
    const immediately = configuration?.returnImmediately === true || configuration?.blocking === false;
    return startTask(runtime, call).then((started): Promise<Task | Message> => {
      // The executor answered with a message (TaskExecutor.reply): no task to wait for.
      if (!("record" in started)) return Promise.resolve(started.reply);
      const { record } = started;
      return (
        immediately ? Promise.resolve(record.task) : awaitSettled(runtime, record, runtime.sendMessageWaitMs)
      ).then((task) => withHistoryLength(task, historyLength));
    });
  },
  // v1.0 answers a SendMessageResponse (`{ task }` or `{ message }`); v0.3 the Task or Message itself.
  render: (dialect, result) => {
    if (!("status" in result)) return dialect.message(result);
    return dialect.version === "1.0" ? { task: dialect.task(result) } : dialect.task(result);
  },
};
