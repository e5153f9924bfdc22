import { z } from "zod";
import { type BoundIssue, metadataIssues, startIssues, wellFormedIssues } from "../internal/schemas/request-bounds.js";
import { A2A_LIMITS } from "../limits.js";
import { Message, Part } from "./a2a.js";

const L = A2A_LIMITS;

/** An id a partner sends (messageId, contextId, taskId, storeId, a task id): stored and echoed, so bounded. */
const Id = z.string().min(1).max(L.idLength, `must be at most ${L.idLength} characters`);

const RequestMetadata = z.record(z.string(), z.unknown());

/**
 * The message of a task start: the shared Message shape with the bounds of what a partner may send. The
 * shared shape stays unbounded, so a client still reads a Task from a server with other limits.
 */
const InboundMessage = Message.extend({
  messageId: Id.optional(),
  contextId: Id.optional(),
  taskId: Id.optional(),
  parts: z.array(Part).min(1).max(L.parts, `a message has at most ${L.parts} parts`),
});

/** Reports the checks that look at the request as a whole, after zod's own (which come first in `data`). */
function checkedBy(...checks: Array<(params: unknown) => BoundIssue[]>) {
  return (params: unknown, ctx: z.RefinementCtx) => {
    for (const check of checks) {
      for (const issue of check(params)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    }
  };
}

/** params of SendStreamingMessage / message/stream. Bounds: `A2A_LIMITS`. */
export const SendStreamingMessageParams = z
  .object({
    message: InboundMessage,
    // A missing metadata object is reported on the field that is missing: params.metadata.storeId.
    metadata: z.preprocess(
      (value) => value ?? {},
      z
        .object({
          /** Selects the target Environment. */
          storeId: Id,
        })
        .catchall(z.unknown()),
    ),
    configuration: z.record(z.string(), z.unknown()).optional(),
  })
  .superRefine(checkedBy(wellFormedIssues, startIssues));
export type SendStreamingMessageParams = z.infer<typeof SendStreamingMessageParams>;

/** params of GetTask / tasks/get. */
export const GetTaskParams = z
  .object({
    id: Id,
    /** How many of the most recent history messages to return; 0 returns none. */
    historyLength: z.number().int().min(0).optional(),
    metadata: RequestMetadata.optional(),
  })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));
export type GetTaskParams = z.infer<typeof GetTaskParams>;

/** params of CancelTask / tasks/cancel and SubscribeToTask / tasks/resubscribe. */
export const TaskIdParams = z
  .object({
    id: Id,
    metadata: RequestMetadata.optional(),
  })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));
export type TaskIdParams = z.infer<typeof TaskIdParams>;
export const CancelTaskParams = TaskIdParams;
export type CancelTaskParams = TaskIdParams;
export const SubscribeToTaskParams = TaskIdParams;
export type SubscribeToTaskParams = TaskIdParams;
