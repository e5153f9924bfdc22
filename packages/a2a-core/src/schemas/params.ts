import { z } from "zod";
import { Message } from "./a2a.js";

/** params of SendStreamingMessage / message/stream. */
export const SendStreamingMessageParams = z.object({
  message: Message,
  // A missing metadata object is reported on the field that is missing: params.metadata.storeId.
  metadata: z.preprocess(
    (value) => value ?? {},
    z
      .object({
        /** Selects the target Environment. */
        storeId: z.string().min(1).max(256),
      })
      .catchall(z.unknown()),
  ),
  configuration: z.record(z.string(), z.unknown()).optional(),
});
export type SendStreamingMessageParams = z.infer<typeof SendStreamingMessageParams>;

/** params of GetTask / tasks/get. */
export const GetTaskParams = z.object({
  id: z.string().min(1).max(256),
  /** How many of the most recent history messages to return; 0 returns none. */
  historyLength: z.number().int().min(0).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type GetTaskParams = z.infer<typeof GetTaskParams>;

/** params of CancelTask / tasks/cancel and SubscribeToTask / tasks/resubscribe. */
export const TaskIdParams = z.object({
  id: z.string().min(1).max(256),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type TaskIdParams = z.infer<typeof TaskIdParams>;
export const CancelTaskParams = TaskIdParams;
export type CancelTaskParams = TaskIdParams;
export const SubscribeToTaskParams = TaskIdParams;
export type SubscribeToTaskParams = TaskIdParams;
