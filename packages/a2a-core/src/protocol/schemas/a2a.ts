import { z } from "zod";
import { ARTIFACT_CHUNK_FIELDS, artifactFields, Metadata, TASK_UPDATE_FIELDS } from "./shared-fields.js";

/**
 * The data model of the core: A2A v1.0 (the ProtoJSON of `a2a.proto`): enums as their proto names, parts
 * without `kind` (one of `text` / `raw` / `url` / `data`), stream results as `StreamResponse`s. The
 * stores, the runtime, the methods and the executor port speak it; the v0.3 dialect (`../v0_3/`) maps it
 * at the edge. Repeated fields are always present here (ProtoJSON leaves empty ones out on the wire).
 */

/** A2A task states, as a2a.proto names them. */
export const TASK_STATES = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_FAILED",
  "TASK_STATE_REJECTED",
  "TASK_STATE_AUTH_REQUIRED",
] as const;
export const TaskState = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof TaskState>;

export const TERMINAL_TASK_STATES = [
  "TASK_STATE_COMPLETED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_FAILED",
  "TASK_STATE_REJECTED",
] as const;
export type TerminalTaskState = (typeof TERMINAL_TASK_STATES)[number];
export const TerminalTaskState = z.enum(TERMINAL_TASK_STATES);

export function isTerminalState(state: TaskState): state is TerminalTaskState {
  return (TERMINAL_TASK_STATES as readonly string[]).includes(state);
}

/** The states in which a task waits for its caller (a follow-up message continues it). */
export type InterruptedTaskState = "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED";

export function isInterruptedState(state: TaskState): state is InterruptedTaskState {
  return state === "TASK_STATE_INPUT_REQUIRED" || state === "TASK_STATE_AUTH_REQUIRED";
}

const PART_CONTENT = ["text", "raw", "url", "data"] as const;

/** A part: exactly one of `text`, `raw` (base64 bytes), `url` or `data` (any JSON value). */
export const Part = z
  .object({
    text: z.string().optional(),
    raw: z.string().optional(),
    url: z.string().optional(),
    data: z.unknown().optional(),
    metadata: Metadata.optional(),
    filename: z.string().optional(),
    mediaType: z.string().optional(),
  })
  .superRefine((part, ctx) => {
    const present = PART_CONTENT.filter((key) => part[key] !== undefined);
    if (present.length !== 1) {
      ctx.addIssue({ code: "custom", message: "a part has exactly one of text, raw, url or data" });
    }
  });
export type Part = z.infer<typeof Part>;

export const Role = z.enum(["ROLE_USER", "ROLE_AGENT"]);
export type Role = z.infer<typeof Role>;

export const Message = z.object({
  /** Required by A2A v1.0; optional here because the contract keeps it optional (idempotency only). */
  messageId: z.string().min(1).max(256).optional(),
  contextId: z.string().optional(),
  taskId: z.string().optional(),
  role: Role,
  parts: z.array(Part).min(1),
  metadata: Metadata.optional(),
  extensions: z.array(z.string()).optional(),
  referenceTaskIds: z.array(z.string()).optional(),
});
export type Message = z.infer<typeof Message>;

export const TaskStatus = z.object({
  state: TaskState,
  message: Message.optional(),
  /** ISO-8601 UTC timestamp of the status change. */
  timestamp: z.string(),
});
export type TaskStatus = z.infer<typeof TaskStatus>;

export const Artifact = z.object({
  ...artifactFields(Part),
  extensions: z.array(z.string()).optional(),
});
export type Artifact = z.infer<typeof Artifact>;

export const TaskMetadata = z
  .object({
    /** The reference server's Environment (`environmentExecutor`); a generic agent's tasks have none. */
    storeId: z.string().optional(),
    messageId: z.string().optional(),
  })
  .catchall(z.unknown());
export type TaskMetadata = z.infer<typeof TaskMetadata>;

export const Task = z.object({
  id: z.string(),
  contextId: z.string(),
  status: TaskStatus,
  artifacts: z.array(Artifact),
  history: z.array(Message),
  metadata: TaskMetadata,
});
export type Task = z.infer<typeof Task>;

export const TaskStatusUpdateEvent = z.object({
  ...TASK_UPDATE_FIELDS,
  status: TaskStatus,
  metadata: Metadata.optional(),
});
export type TaskStatusUpdateEvent = z.infer<typeof TaskStatusUpdateEvent>;

export const TaskArtifactUpdateEvent = z.object({
  ...TASK_UPDATE_FIELDS,
  artifact: Artifact,
  ...ARTIFACT_CHUNK_FIELDS,
  metadata: Metadata.optional(),
});
export type TaskArtifactUpdateEvent = z.infer<typeof TaskArtifactUpdateEvent>;

/** What an `update` or `finished` event carries: one member, as in a `StreamResponse`. */
export type TaskUpdateResult = { statusUpdate: TaskStatusUpdateEvent } | { artifactUpdate: TaskArtifactUpdateEvent };

/** A logged event's result: the task (the `task` event, seq 1) or one of its updates. */
export type TaskEventResult = { task: Task } | TaskUpdateResult;

/** The `result` of a stream frame (`StreamResponse`): exactly one member. */
export type StreamResponse = TaskEventResult | { message: Message };

/**
 * A state in words, as messages, logs and metrics name it: `TASK_STATE_INPUT_REQUIRED` → "input-required"
 * (which is also A2A v0.3's spelling).
 */
export function stateLabel(state: TaskState): string {
  return state.slice("TASK_STATE_".length).toLowerCase().replace("_", "-");
}
