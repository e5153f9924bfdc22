import type { Caller } from "../../ports/caller.js";
import type { Message } from "../../protocol/schemas/a2a.js";
import type { A2ARuntime } from "../../runtime/a2a-runtime.js";
import type { MessageReply } from "../method.js";
import { idempotencyKey } from "./idempotency-key.js";

/**
 * The executor's message reply to a new message (`TaskExecutor.reply`), or undefined when the message
 * starts a task: the executor has no `reply`, answered none, or the messageId already names a task (a
 * retry of a task start gets its task, never a reply). A reply is stored nowhere.
 */
export async function messageReply(
  runtime: A2ARuntime,
  message: Message,
  caller: Caller,
): Promise<MessageReply | undefined> {
  const { reply } = runtime.executor;
  if (!reply) return undefined;
  const key = idempotencyKey(runtime, message);
  if (key !== undefined && (await runtime.stores.idempotency.get(caller.workspaceId, key))) return undefined;
  const answer = await reply.call(runtime.executor, { workspaceId: caller.workspaceId, message });
  if (!answer) return undefined;
  return {
    reply: {
      messageId: runtime.generateId(),
      contextId: message.contextId ?? runtime.generateId(),
      role: "ROLE_AGENT",
      parts: answer.parts,
      ...(answer.metadata ? { metadata: answer.metadata } : {}),
    },
  };
}
