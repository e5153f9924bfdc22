import { InvalidParamsError } from "../errors.js";
import {
  type Artifact,
  isTerminalState,
  type Message,
  type Part,
  type Task,
  type TaskMetadata,
  type TaskState,
  type TaskStatus,
  type TaskUpdateResult,
} from "../schemas/a2a.js";
import {
  type ArtifactV1,
  MessageV1,
  type PartV1,
  ROLE_V1,
  type StreamResponseV1,
  TASK_STATE_V1,
  type TaskStatusV1,
  type TaskV1,
} from "../schemas/a2a-v1.js";

/**
 * The one mapping between the v1.0 wire shapes and the v0.3 shapes the handler and stores use. Requests
 * come in through `fromV1*` (then the v0.3 schemas check them, bounds and all), results go out through
 * `toV1*`. Nothing here knows about methods or streams.
 */

const STATE_FROM_V1 = new Map<string, TaskState>(
  Object.entries(TASK_STATE_V1).map(([state, v1]) => [v1, state as TaskState]),
);
const STATE_NAMES_V1 = Object.values(TASK_STATE_V1).join(", ");

// ---- v1.0 → v0.3 (requests) --------------------------------------------------------------------------

/** A v1.0 message → the v0.3 message input (unchecked beyond its v1.0 shape: the v0.3 schema follows). */
export function fromV1Message(value: unknown, field = "params.message"): Record<string, unknown> {
  const parsed = MessageV1.safeParse(value);
  if (!parsed.success) throw InvalidParamsError.fromZod(parsed.error, field);
  return fromV1MessageResult(parsed.data);
}

function fromV1Part(part: PartV1): Part {
  const metadata = part.metadata ? { metadata: part.metadata } : {};
  const file = {
    ...(part.mediaType ? { mimeType: part.mediaType } : {}),
    ...(part.filename ? { name: part.filename } : {}),
  };
  if (part.text !== undefined) return { kind: "text", text: part.text, ...metadata };
  if (part.raw !== undefined) return { kind: "file", file: { bytes: part.raw, ...file }, ...metadata };
  if (part.url !== undefined) return { kind: "file", file: { uri: part.url, ...file }, ...metadata };
  // v1.0 data is any JSON value; v0.3 data is an object, so anything else travels as { value }.
  const data = part.data;
  const object = typeof data === "object" && data !== null && !Array.isArray(data);
  return { kind: "data", data: object ? (data as Record<string, unknown>) : { value: data }, ...metadata };
}

/** `TASK_STATE_*` → the v0.3 spelling; "" and TASK_STATE_UNSPECIFIED mean "not given". */
export function fromV1State(value: unknown, field: string): TaskState | undefined {
  if (value === undefined || value === null || value === "" || value === "TASK_STATE_UNSPECIFIED") return undefined;
  const state = typeof value === "string" ? STATE_FROM_V1.get(value) : undefined;
  if (!state) throw InvalidParamsError.forField(field, `must be one of ${STATE_NAMES_V1}`);
  return state;
}

// ---- v0.3 → v1.0 (results) ---------------------------------------------------------------------------

export interface TaskViewV1 {
  /** Leave `artifacts` out (ListTasks without includeArtifacts). */
  omitArtifacts?: boolean;
}

export function toV1Task(
  task: Task | (Omit<Task, "artifacts"> & { artifacts?: Artifact[] }),
  view: TaskViewV1 = {},
): TaskV1 {
  return {
    id: task.id,
    contextId: task.contextId,
    status: toV1Status(task.status),
    ...(view.omitArtifacts || task.artifacts === undefined ? {} : { artifacts: task.artifacts.map(toV1Artifact) }),
    // historyLength 0 leaves history empty; v1.0 says the field is then omitted.
    ...(task.history.length === 0 ? {} : { history: task.history.map(toV1Message) }),
    metadata: task.metadata,
  };
}

export function toV1Status(status: TaskStatus): TaskStatusV1 {
  return {
    state: TASK_STATE_V1[status.state],
    ...(status.message ? { message: toV1Message(status.message) } : {}),
    timestamp: status.timestamp,
  };
}

export function toV1Message(message: Message): MessageV1 {
  return {
    ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
    ...(message.contextId === undefined ? {} : { contextId: message.contextId }),
    ...(message.taskId === undefined ? {} : { taskId: message.taskId }),
    role: ROLE_V1[message.role],
    parts: message.parts.map(toV1Part),
    ...(message.metadata ? { metadata: message.metadata } : {}),
  };
}

function toV1Part(part: Part): PartV1 {
  const metadata = part.metadata ? { metadata: part.metadata } : {};
  if (part.kind === "text") return { text: part.text, ...metadata };
  if (part.kind === "data") return { data: part.data, ...metadata };
  const { file } = part;
  const named = {
    ...(file.name ? { filename: file.name } : {}),
    ...(file.mimeType ? { mediaType: file.mimeType } : {}),
  };
  return "bytes" in file ? { raw: file.bytes, ...named, ...metadata } : { url: file.uri, ...named, ...metadata };
}

function toV1Artifact(artifact: Artifact): ArtifactV1 {
  return withPartsMapped(artifact, toV1Part);
}

/** An artifact in the other dialect: its fields are the same in both, only its parts are mapped. */
function withPartsMapped<P, Q>(
  artifact: { artifactId: string; name?: string; description?: string; parts: P[]; metadata?: Record<string, unknown> },
  mapPart: (part: P) => Q,
) {
  return {
    artifactId: artifact.artifactId,
    ...(artifact.name === undefined ? {} : { name: artifact.name }),
    ...(artifact.description === undefined ? {} : { description: artifact.description }),
    parts: artifact.parts.map(mapPart),
    ...(artifact.metadata ? { metadata: artifact.metadata } : {}),
  };
}

/** A stream frame's v0.3 result → its v1.0 StreamResponse. The v0.3 `final` flag has no v1.0 field. */
export function toV1StreamResult(result: Task | TaskUpdateResult): StreamResponseV1 {
  if (result.kind === "task") return { task: toV1Task(result) };
  if (result.kind === "status-update") {
    return {
      statusUpdate: {
        taskId: result.taskId,
        contextId: result.contextId,
        status: toV1Status(result.status),
        ...(result.metadata ? { metadata: result.metadata } : {}),
      },
    };
  }
  return { artifactUpdate: withArtifactMapped(result, toV1Artifact) };
}

/** An artifact update in the other dialect: its fields are the same in both, only its artifact is mapped. */
function withArtifactMapped<A, B>(
  update: {
    taskId: string;
    contextId: string;
    artifact: A;
    append?: boolean;
    lastChunk?: boolean;
    metadata?: Record<string, unknown>;
  },
  mapArtifact: (artifact: A) => B,
) {
  return {
    taskId: update.taskId,
    contextId: update.contextId,
    artifact: mapArtifact(update.artifact),
    ...(update.append === undefined ? {} : { append: update.append }),
    ...(update.lastChunk === undefined ? {} : { lastChunk: update.lastChunk }),
    ...(update.metadata ? { metadata: update.metadata } : {}),
  };
}

// ---- v1.0 → v0.3 (results, for a client) --------------------------------------------------------------

/** A checked v1.0 message → the v0.3 message. */
export function fromV1MessageResult(message: MessageV1): Message {
  return {
    kind: "message",
    role: message.role === "ROLE_USER" ? "user" : "agent",
    parts: message.parts.map(fromV1Part),
    ...(message.messageId ? { messageId: message.messageId } : {}),
    ...(message.contextId ? { contextId: message.contextId } : {}),
    ...(message.taskId ? { taskId: message.taskId } : {}),
    ...(message.metadata ? { metadata: message.metadata } : {}),
  };
}

/** A checked v1.0 status → the v0.3 status; the inverse of `toV1Status`. */
export function fromV1Status(status: TaskStatusV1): TaskStatus {
  return {
    state: STATE_FROM_V1.get(status.state) as TaskState,
    ...(status.message ? { message: fromV1MessageResult(status.message) } : {}),
    // v1.0 makes the timestamp optional; v0.3 requires one, and "" says "not given".
    timestamp: status.timestamp ?? "",
  };
}

function fromV1Artifact(artifact: ArtifactV1): Artifact {
  return withPartsMapped(artifact, fromV1Part);
}

/**
 * A checked v1.0 task → the v0.3 task; omitted `history` reads as empty, omitted `artifacts` stays
 * omitted (ListTasks without includeArtifacts). The inverse of `toV1Task`.
 */
export function fromV1Task(task: TaskV1): Omit<Task, "artifacts"> & { artifacts?: Artifact[] } {
  return {
    kind: "task",
    id: task.id,
    contextId: task.contextId,
    status: fromV1Status(task.status),
    history: (task.history ?? []).map(fromV1MessageResult),
    ...(task.artifacts === undefined ? {} : { artifacts: task.artifacts.map(fromV1Artifact) }),
    metadata: (task.metadata ?? {}) as TaskMetadata,
  };
}

/**
 * A checked v1.0 StreamResponse → the v0.3 frame result (a `message` result has no v0.3 stream
 * counterpart here: undefined). The v0.3 `final` flag is derived from the state, as the server sets it.
 */
export function fromV1StreamResult(result: StreamResponseV1): Task | TaskUpdateResult | undefined {
  if ("task" in result) {
    const task = fromV1Task(result.task);
    return { ...task, artifacts: task.artifacts ?? [] };
  }
  if ("statusUpdate" in result) {
    const update = result.statusUpdate;
    const status = fromV1Status(update.status);
    return {
      kind: "status-update",
      taskId: update.taskId,
      contextId: update.contextId,
      status,
      final: isTerminalState(status.state),
      ...(update.metadata ? { metadata: update.metadata } : {}),
    };
  }
  if ("artifactUpdate" in result) {
    const update = result.artifactUpdate;
    return { kind: "artifact-update", ...withArtifactMapped(update, fromV1Artifact) };
  }
  return undefined;
}

// ---- errors --------------------------------------------------------------------------------------------
