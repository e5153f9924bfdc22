import { z } from "zod";
import { LIST_PAGE_FIELDS } from "../schemas/list-tasks.js";
import { ARTIFACT_CHUNK_FIELDS, artifactFields, Metadata, TASK_UPDATE_FIELDS } from "../schemas/shared-fields.js";

/**
 * A2A v0.3's shapes of the data model (lowercase states, parts with `kind`, `kind`-tagged results): what
 * the v0.3 dialect reads and writes, and what earlier releases stored. Nothing inside the core uses them.
 */

/** A2A task states (v0.3 lowercase spellings). */
export const TASK_STATES_V03 = [
  "submitted",
  "working",
  "input-required",
  "completed",
  "canceled",
  "failed",
  "rejected",
  "auth-required",
] as const;
export const TaskStateV03 = z.enum(TASK_STATES_V03);
export type TaskStateV03 = z.infer<typeof TaskStateV03>;

export const TERMINAL_TASK_STATES_V03 = ["completed", "canceled", "failed", "rejected"] as const;
export type TerminalTaskStateV03 = (typeof TERMINAL_TASK_STATES_V03)[number];
export const TerminalTaskStateV03 = z.enum(TERMINAL_TASK_STATES_V03);

export function isTerminalStateV03(state: TaskStateV03): state is TerminalTaskStateV03 {
  return (TERMINAL_TASK_STATES_V03 as readonly string[]).includes(state);
}

export const TextPartV03 = z.object({
  kind: z.literal("text"),
  text: z.string(),
  metadata: Metadata.optional(),
});
export type TextPartV03 = z.infer<typeof TextPartV03>;

const FileWithBytesV03 = z.object({
  bytes: z.string(),
  mimeType: z.string().optional(),
  name: z.string().optional(),
});
const FileWithUriV03 = z.object({
  uri: z.string(),
  mimeType: z.string().optional(),
  name: z.string().optional(),
});
export const FilePartV03 = z.object({
  kind: z.literal("file"),
  file: z.union([FileWithBytesV03, FileWithUriV03]),
  metadata: Metadata.optional(),
});
export type FilePartV03 = z.infer<typeof FilePartV03>;

export const DataPartV03 = z.object({
  kind: z.literal("data"),
  data: z.record(z.string(), z.unknown()),
  metadata: Metadata.optional(),
});
export type DataPartV03 = z.infer<typeof DataPartV03>;

export const PartV03 = z.discriminatedUnion("kind", [TextPartV03, FilePartV03, DataPartV03]);
export type PartV03 = z.infer<typeof PartV03>;

export const RoleV03 = z.enum(["user", "agent"]);
export type RoleV03 = z.infer<typeof RoleV03>;

export const MessageV03 = z.object({
  kind: z.literal("message").optional(),
  role: RoleV03,
  /** Unique per logical task; drives idempotency. Optional for backward compatibility. */
  messageId: z.string().min(1).max(256).optional(),
  parts: z.array(PartV03).min(1),
  taskId: z.string().optional(),
  contextId: z.string().optional(),
  metadata: Metadata.optional(),
});
export type MessageV03 = z.infer<typeof MessageV03>;

export const TaskStatusV03 = z.object({
  state: TaskStateV03,
  message: MessageV03.optional(),
  /** ISO-8601 UTC timestamp of the status change. */
  timestamp: z.string(),
});
export type TaskStatusV03 = z.infer<typeof TaskStatusV03>;

export const ArtifactV03 = z.object(artifactFields(PartV03));
export type ArtifactV03 = z.infer<typeof ArtifactV03>;

export const TaskMetadataV03 = z
  .object({
    /** The reference server's Environment (`environmentExecutor`); a generic agent's tasks have none. */
    storeId: z.string().optional(),
    messageId: z.string().optional(),
  })
  .catchall(z.unknown());
export type TaskMetadataV03 = z.infer<typeof TaskMetadataV03>;

export const TaskV03 = z.object({
  kind: z.literal("task"),
  id: z.string(),
  contextId: z.string(),
  status: TaskStatusV03,
  history: z.array(MessageV03),
  artifacts: z.array(ArtifactV03),
  metadata: TaskMetadataV03,
});
export type TaskV03 = z.infer<typeof TaskV03>;

export const TaskStatusUpdateEventV03 = z.object({
  kind: z.literal("status-update"),
  ...TASK_UPDATE_FIELDS,
  status: TaskStatusV03,
  final: z.boolean(),
  metadata: Metadata.optional(),
});
export type TaskStatusUpdateEventV03 = z.infer<typeof TaskStatusUpdateEventV03>;

export const TaskArtifactUpdateEventV03 = z.object({
  kind: z.literal("artifact-update"),
  ...TASK_UPDATE_FIELDS,
  artifact: ArtifactV03,
  ...ARTIFACT_CHUNK_FIELDS,
  metadata: Metadata.optional(),
});
export type TaskArtifactUpdateEventV03 = z.infer<typeof TaskArtifactUpdateEventV03>;

/** What an `update` frame carries. */
export const TaskUpdateResultV03 = z.discriminatedUnion("kind", [TaskStatusUpdateEventV03, TaskArtifactUpdateEventV03]);
export type TaskUpdateResultV03 = z.infer<typeof TaskUpdateResultV03>;

/** A task as a v0.3 ListTasks shows it: `artifacts` only when the request asked for them. */
export const ListedTaskV03 = TaskV03.extend({ artifacts: z.array(ArtifactV03).optional() });
export type ListedTaskV03 = z.infer<typeof ListedTaskV03>;

/** The result of ListTasks / tasks/list in the v0.3 dialect. */
export const ListTasksResultV03 = z.object({ tasks: z.array(ListedTaskV03), ...LIST_PAGE_FIELDS });
export type ListTasksResultV03 = z.infer<typeof ListTasksResultV03>;
