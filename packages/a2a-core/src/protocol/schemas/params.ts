import { z } from "zod";
import { A2A_LIMITS } from "../limits.js";
import { Message, Part, TaskState } from "./a2a.js";
import { metadataIssues, startIssues, wellFormedIssues } from "./bounds/request-bounds.js";
import { absentIfEmpty, checkedBy, Id, NO_NUL, RequestMetadata } from "./param-fields.js";
import { PushConfigInput } from "./push-config.js";

const L = A2A_LIMITS;

/**
 * The Environment a task runs in. Optional on the wire (a workspace may name a default Environment);
 * a start with neither is refused by the method with the same words (STORE_ID_REQUIRED).
 */
const StoreId = z
  .string({
    error: (issue) =>
      issue.input === undefined
        ? STORE_ID_REQUIRED
        : "must be a string: the storeId of an Environment of your workspace",
  })
  .min(1)
  .max(L.idLength, `must be at most ${L.idLength} characters`);

/** What a start without a storeId is told when its workspace names no default Environment either. */
export const STORE_ID_REQUIRED =
  "is required: the storeId of the Environment (the store and its robots) that carries the task out";

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

const startParams = z.object({
  message: InboundMessage,
  // A missing metadata object is reported on the field that is missing: params.metadata.storeId.
  metadata: z.preprocess(
    (value) => value ?? {},
    z
      .object({
        /** Selects the target Environment; without it, the workspace's default Environment (if any). */
        storeId: StoreId.optional(),
      })
      .catchall(z.unknown()),
  ),
  configuration: z
    .object({
      /** Where the task's events are pushed, stored with the task (checked like a created config). */
      taskPushNotificationConfig: PushConfigInput.nullish(),
    })
    .catchall(z.unknown())
    .optional(),
});

/** params of SendStreamingMessage / message/stream. Bounds: `A2A_LIMITS`. */
export const SendStreamingMessageParams = startParams.superRefine(checkedBy(wellFormedIssues, startIssues));
export type SendStreamingMessageParams = z.infer<typeof SendStreamingMessageParams>;

/**
 * params of SendMessage / message/send: a start's, and how to answer it. v1.0's `returnImmediately` and
 * v0.3's `blocking: false` both ask for the task at once; otherwise the answer waits for the task to end
 * or to ask for input (bounded: see the handler's `methods.sendMessage.maxWaitMs`).
 */
export const SendMessageParams = startParams
  .extend({
    configuration: startParams.shape.configuration
      .unwrap()
      .extend({
        /** v0.3: `false` answers at once. */
        blocking: z.boolean().optional(),
        /** v1.0: `true` answers at once. */
        returnImmediately: z.boolean().optional(),
        /** How many of the most recent history messages the answer's task carries; 0 none. */
        historyLength: z.number().int().min(0, "must not be negative").optional(),
        /** Media types the client takes in the answer's parts; handed to the executor. */
        acceptedOutputModes: z.array(z.string().max(L.idLength)).max(L.parts).optional(),
      })
      .optional(),
  })
  .superRefine(checkedBy(wellFormedIssues, startIssues));
export type SendMessageParams = z.infer<typeof SendMessageParams>;

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

/** Page sizes of ListTasks: A2A v1.0 allows 1–100 and defaults to 50. */
export const LIST_TASKS_PAGE_SIZE = { min: 1, max: 100, default: 50 } as const;

/**
 * A filter value is compared in SQL, so it must be one PostgreSQL can read: text never holds U+0000
 * (`NO_NUL`), and a timestamp lies in years 0001–9999 (zod and JavaScript accept year 0000, and the handler
 * passes the instant on in UTC, where an offset can carry "0001-01-01T00:00+14:00" into year 0; PostgreSQL
 * refuses those). Refused here, a bad filter is -32602 on every binding and dialect, never a store error
 * answered as an outage.
 */
function isStorableInstant(value: string): boolean {
  const utcYear = new Date(value).getUTCFullYear();
  return Number(value.slice(0, 4)) >= 1 && utcYear >= 1 && utcYear <= 9999;
}

/**
 * params of ListTasks / tasks/list, `status` as the model names it (`TASK_STATE_*`; the v0.3 dialect
 * maps its spelling first). Every filter is optional; the caller's workspace is always the scope.
 */
export const ListTasksParams = z
  .object({
    /** v1.0 multi-tenancy selector; the partner token already names the workspace, so it is ignored. */
    tenant: z.string().max(L.idLength).optional(),
    contextId: absentIfEmpty(Id.refine(...NO_NUL)),
    status: absentIfEmpty(TaskState),
    pageSize: z
      .number()
      .int()
      .min(LIST_TASKS_PAGE_SIZE.min, `must be between ${LIST_TASKS_PAGE_SIZE.min} and ${LIST_TASKS_PAGE_SIZE.max}`)
      .max(LIST_TASKS_PAGE_SIZE.max, `must be between ${LIST_TASKS_PAGE_SIZE.min} and ${LIST_TASKS_PAGE_SIZE.max}`)
      .optional(),
    /** The `nextPageToken` of the previous page; opaque. */
    pageToken: absentIfEmpty(z.string().max(1024, "is not a page token of this server")),
    /** Most recent history messages per task; 0 returns none. Default: all. */
    historyLength: z.number().int().min(0, "must not be negative").optional(),
    /** Only tasks whose status changed at or after this ISO-8601 instant (with offset or Z). */
    statusTimestampAfter: absentIfEmpty(
      z.iso
        .datetime({ offset: true, message: "must be an ISO-8601 timestamp" })
        .refine(isStorableInstant, "must be an ISO-8601 timestamp in the years 0001 to 9999"),
    ),
    /** Whether each task carries its artifacts (default false: the field is left out). */
    includeArtifacts: z.boolean().optional(),
    metadata: RequestMetadata.optional(),
  })
  .superRefine(checkedBy(wellFormedIssues, metadataIssues));
export type ListTasksParams = z.infer<typeof ListTasksParams>;
