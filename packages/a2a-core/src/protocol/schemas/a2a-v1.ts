import { z } from "zod";
import { TASK_STATES, type TaskState } from "./a2a.js";
import { ARTIFACT_CHUNK_FIELDS, artifactFields, Metadata as Struct, TASK_UPDATE_FIELDS } from "./shared-fields.js";

/**
 * The A2A v1.0 JSON-RPC payloads (ProtoJSON of `a2a.proto`): enums as their proto names, parts without
 * `kind` (one of `text` / `raw` / `url` / `data`), stream results wrapped as `{ task | statusUpdate |
 * artifactUpdate }`. The wire shapes of the v1.0 dialect; `dialect/v1-mapping.ts` converts them to and from
 * the v0.3 shapes the handler and the stores work with.
 */

/** v0.3 state spelling → v1.0 enum name. The one table of this correspondence. */
export const TASK_STATE_V1 = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  canceled: "TASK_STATE_CANCELED",
  failed: "TASK_STATE_FAILED",
  rejected: "TASK_STATE_REJECTED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
} as const satisfies Record<TaskState, string>;

export const TaskStateV1 = z.enum(TASK_STATES.map((state) => TASK_STATE_V1[state]) as [TaskStateV1Name]);
export type TaskStateV1Name = (typeof TASK_STATE_V1)[TaskState];
export type TaskStateV1 = z.infer<typeof TaskStateV1>;

export const ROLE_V1 = { user: "ROLE_USER", agent: "ROLE_AGENT" } as const;
export const RoleV1 = z.enum(["ROLE_USER", "ROLE_AGENT"]);
export type RoleV1 = z.infer<typeof RoleV1>;

const PART_CONTENT = ["text", "raw", "url", "data"] as const;

/** A part: exactly one of `text`, `raw` (base64 bytes), `url` or `data` (any JSON value). */
export const PartV1 = z
  .object({
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
    metadata: Struct.optional(),
    filename: z.string().optional(),
    mediaType: z.string().optional(),
  })
  .superRefine((part, ctx) => {
    const present = PART_CONTENT.filter((key) => part[key] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({ code: "custom", message: "a part has exactly one of text, raw, url or data" });
    }
  });
export type PartV1 = z.infer<typeof PartV1>;

export const MessageV1 = z.object({
  /** Required by A2A v1.0; optional here because the contract keeps it optional (idempotency only). */
  messageId: z.string().optional(),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: RoleV1,
  parts: z.array(PartV1).min(1),
  metadata: Struct.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
export type MessageV1 = z.infer<typeof MessageV1>;

export const TaskStatusV1 = z.object({
  state: TaskStateV1,
  message: MessageV1.optional(),
  timestamp: z.string().optional(),
});
export type TaskStatusV1 = z.infer<typeof TaskStatusV1>;

export const ArtifactV1 = z.object({
  ...artifactFields(PartV1),
  extensions: z.array(z.string()).optional(),
});
export type ArtifactV1 = z.infer<typeof ArtifactV1>;

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
