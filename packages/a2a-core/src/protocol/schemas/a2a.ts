import { z } from "zod";
import { ARTIFACT_CHUNK_FIELDS, artifactFields, Metadata, TASK_UPDATE_FIELDS } from "./shared-fields.js";

/** A2A task states (v0.3 lowercase spellings). */
export const TASK_STATES = [
  "submitted",
  "working",
  "input-required",
  "completed",
  "canceled",
  "failed",
  "rejected",
  "auth-required",
] as const;
export const TaskState = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof TaskState>;

export const TERMINAL_TASK_STATES = ["completed", "canceled", "failed", "rejected"] as const;
export type TerminalTaskState = (typeof TERMINAL_TASK_STATES)[number];
export const TerminalTaskState = z.enum(TERMINAL_TASK_STATES);

export function isTerminalState(state: TaskState): state is TerminalTaskState {
  return (TERMINAL_TASK_STATES as readonly string[]).includes(state);
}

export const TextPart = z.object({
  kind: z.literal("text"),
  text: z.string(),
  metadata: Metadata.optional(),
});
export type TextPart = z.infer<typeof TextPart>;

const FileWithBytes = z.object({
  bytes: z.string(),
  mimeType: z.string().optional(),
  name: z.string().optional(),
});
const FileWithUri = z.object({
  uri: z.string(),
  mimeType: z.string().optional(),
  name: z.string().optional(),
});
export const FilePart = z.object({
  kind: z.literal("file"),
  file: z.union([FileWithBytes, FileWithUri]),
  metadata: Metadata.optional(),
});
export type FilePart = z.infer<typeof FilePart>;

export const DataPart = z.object({
  kind: z.literal("data"),
  data: z.record(z.string(), z.unknown()),
  metadata: Metadata.optional(),
});
export type DataPart = z.infer<typeof DataPart>;

export const Part = z.discriminatedUnion("kind", [TextPart, FilePart, DataPart]);
export type Part = z.infer<typeof Part>;

export const Role = z.enum(["user", "agent"]);
export type Role = z.infer<typeof Role>;

export const Message = z.object({
  kind: z.literal("message").optional(),
  role: Role,
  /** Unique per logical task; drives idempotency. Optional for backward compatibility. */
  messageId: z.string().min(1).max(256).optional(),
  parts: z.array(Part).min(1),
  taskId: z.string().optional(),
  contextId: z.string().optional(),
  metadata: Metadata.optional(),
});
export type Message = z.infer<typeof Message>;

export const TaskStatus = z.object({
  state: TaskState,
  message: Message.optional(),
  /** ISO-8601 UTC timestamp of the status change. */
  timestamp: z.string(),
});
export type TaskStatus = z.infer<typeof TaskStatus>;

export const Artifact = z.object(artifactFields(Part));
export type Artifact = z.infer<typeof Artifact>;

export const TaskMetadata = z
  .object({
    storeId: z.string(),
    messageId: z.string().optional(),
  })
  .catchall(z.unknown());
export type TaskMetadata = z.infer<typeof TaskMetadata>;

export const Task = z.object({
  kind: z.literal("task"),
  id: z.string(),
  contextId: z.string(),
  status: TaskStatus,
  history: z.array(Message),
  artifacts: z.array(Artifact),
  metadata: TaskMetadata,
});
export type Task = z.infer<typeof Task>;

export const TaskStatusUpdateEvent = z.object({
  kind: z.literal("status-update"),
  ...TASK_UPDATE_FIELDS,
  status: TaskStatus,
  final: z.boolean(),
  metadata: Metadata.optional(),
});
export type TaskStatusUpdateEvent = z.infer<typeof TaskStatusUpdateEvent>;

export const TaskArtifactUpdateEvent = z.object({
  kind: z.literal("artifact-update"),
  ...TASK_UPDATE_FIELDS,
  artifact: Artifact,
  ...ARTIFACT_CHUNK_FIELDS,
  metadata: Metadata.optional(),
});
export type TaskArtifactUpdateEvent = z.infer<typeof TaskArtifactUpdateEvent>;

/** What an `update` frame carries. */
export const TaskUpdateResult = z.discriminatedUnion("kind", [TaskStatusUpdateEvent, TaskArtifactUpdateEvent]);
export type TaskUpdateResult = z.infer<typeof TaskUpdateResult>;
