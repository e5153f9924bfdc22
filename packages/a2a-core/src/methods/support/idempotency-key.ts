import type { Message } from "../../protocol/schemas/a2a.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";

/** The message's idempotency key: its messageId, unless the embedder turned that off. */
export function idempotencyKey(runtime: A2ARuntime, message: Message): string | undefined {
  return runtime.messageIdsAreKeys ? message.messageId : undefined;
}
