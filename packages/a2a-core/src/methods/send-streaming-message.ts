import { SendStreamingMessageParams } from "../protocol/schemas/params.js";
import type { StreamingMethod } from "./method.js";
import { startTask } from "./support/start-task.js";

/**
 * SendStreamingMessage (`message/stream`): starts a task (see startTask: durable, idempotent on
 * `messageId`) and streams it.
 */
export const sendStreamingMessage: StreamingMethod<typeof SendStreamingMessageParams> = {
  name: "SendStreamingMessage",
  streaming: true,
  params: SendStreamingMessageParams,
  run: startTask,
};
