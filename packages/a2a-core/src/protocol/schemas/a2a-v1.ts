import { z } from "zod";
import { Artifact, Message, Part, Role, TaskState } from "./a2a.js";
import { ARTIFACT_CHUNK_FIELDS, Metadata as Struct, TASK_UPDATE_FIELDS } from "./shared-fields.js";

/**
 * The A2A v1.0 payloads as a client reads them off the wire: the core's model (`./a2a.ts`), with what
 * ProtoJSON may leave out made optional (empty repeated fields, the status timestamp, metadata).
 */

export const TaskStateV1 = TaskState;
export type TaskStateV1 = TaskState;
export const RoleV1 = Role;
export type RoleV1 = Role;
export const PartV1 = Part;
export type PartV1 = Part;
/** A message as the wire may carry it (a `messageId` of any length). */
export const MessageV1 = Message.extend({ messageId: z.string().optional() });
export type MessageV1 = z.infer<typeof MessageV1>;
export const ArtifactV1 = Artifact;
export type ArtifactV1 = Artifact;

export const TaskStatusV1 = z.object({
  state: TaskStateV1,
  message: MessageV1.optional(),
  timestamp: z.string().optional(),
});
export type TaskStatusV1 = z.infer<typeof TaskStatusV1>;

export const TaskV1 = z.object({
  id: z.string(),
  contextId: z.string(),
  status: TaskStatusV1,
  /** Omitted by ListTasks unless `includeArtifacts` is true. */
  artifacts: z.array(ArtifactV1).optional(),
  /** Omitted when `historyLength` is 0. */
  history: z.array(MessageV1).optional(),
  metadata: Struct.optional(),
});
export type TaskV1 = z.infer<typeof TaskV1>;

export const TaskStatusUpdateEventV1 = z.object({
  ...TASK_UPDATE_FIELDS,
  status: TaskStatusV1,
  metadata: Struct.optional(),
});
export type TaskStatusUpdateEventV1 = z.infer<typeof TaskStatusUpdateEventV1>;

export const TaskArtifactUpdateEventV1 = z.object({
  ...TASK_UPDATE_FIELDS,
  artifact: ArtifactV1,
  ...ARTIFACT_CHUNK_FIELDS,
  metadata: Struct.optional(),
});
export type TaskArtifactUpdateEventV1 = z.infer<typeof TaskArtifactUpdateEventV1>;

/** The `result` of every v1.0 stream frame: exactly one member. */
export const StreamResponseV1 = z.union([
  z.object({ task: TaskV1 }).strict(),
  z.object({ message: MessageV1 }).strict(),
  z.object({ statusUpdate: TaskStatusUpdateEventV1 }).strict(),
  z.object({ artifactUpdate: TaskArtifactUpdateEventV1 }).strict(),
]);
export type StreamResponseV1 = z.infer<typeof StreamResponseV1>;

/** `google.rpc.ErrorInfo`, the detail every v1.0 error carries in `error.data`. */
export const ErrorInfoV1 = z.object({
  "@type": z.literal("type.googleapis.com/google.rpc.ErrorInfo"),
  reason: z.string(),
  domain: z.string(),
  metadata: z.record(z.string(), z.string()).optional(),
});
export type ErrorInfoV1 = z.infer<typeof ErrorInfoV1>;

/** `google.rpc.BadRequest`, added to -32602 errors: which fields failed and why. */
export const BadRequestV1 = z.object({
  "@type": z.literal("type.googleapis.com/google.rpc.BadRequest"),
  fieldViolations: z.array(z.object({ field: z.string(), description: z.string() })),
});
export type BadRequestV1 = z.infer<typeof BadRequestV1>;
