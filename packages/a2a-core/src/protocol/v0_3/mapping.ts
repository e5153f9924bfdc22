import { InvalidParamsError } from "../errors.js";
import {
  type Artifact,
  isTerminalState,
  type Message,
  type Part,
  type Role,
  type Task,
  type TaskEventResult,
  type TaskMetadata,
  type TaskState,
  type TaskStatus,
} from "../schemas/a2a.js";
import type { ListedTask } from "../schemas/list-tasks.js";
import { keptMapping, keptMappingOf } from "./kept-mapping.js";
import {
  type ArtifactV03,
  MessageV03,
  type PartV03,
  type RoleV03,
  type TaskStateV03,
  type TaskStatusV03,
  type TaskUpdateResultV03,
  type TaskV03,
} from "./schemas.js";

/**
 * The one mapping between the core's model (A2A v1.0) and A2A v0.3's shapes. The server reads v0.3
 * requests with `fromV03*` and writes v0.3 answers with `toV03*`; the typed client, whose own model is
 * v0.3, uses the same functions the other way round; the PostgreSQL store writes the v0.3 shapes (what
 * earlier releases read) and reads both. Nothing here knows about methods or streams.
 */

/** v0.3 state spelling → the model's. The one table of this correspondence. */
export const STATE_FROM_V03 = {
  submitted: "TASK_STATE_SUBMITTED",
  working: "TASK_STATE_WORKING",
  "input-required": "TASK_STATE_INPUT_REQUIRED",
  completed: "TASK_STATE_COMPLETED",
  canceled: "TASK_STATE_CANCELED",
  failed: "TASK_STATE_FAILED",
  rejected: "TASK_STATE_REJECTED",
  "auth-required": "TASK_STATE_AUTH_REQUIRED",
} as const satisfies Record<TaskStateV03, TaskState>;

const STATE_TO_V03 = Object.fromEntries(Object.entries(STATE_FROM_V03).map(([v03, state]) => [state, v03])) as Record<
  TaskState,
  TaskStateV03
>;

const ROLE_FROM_V03 = { user: "ROLE_USER", agent: "ROLE_AGENT" } as const satisfies Record<RoleV03, Role>;

export function toV03State(state: TaskState): TaskStateV03 {
  return STATE_TO_V03[state];
}

export function fromV03State(state: TaskStateV03): TaskState {
  return STATE_FROM_V03[state];
}

// ---- the model → v0.3 -----------------------------------------------------------------------------------

// The builders below assign optional fields one by one instead of spreading `{}` or `{ field }`: they
// run for every event of every task, and each spread allocates. The insertion order is the wire's key
// order.

export function toV03Task(task: ListedTask): TaskV03 | (Omit<TaskV03, "artifacts"> & { artifacts?: ArtifactV03[] }) {
  return mapTask(task, toV03Message);
}

/**
 * `toV03Task` for a text made once (a stream's snapshot frame): the history's mappings made here are not
 * kept on its messages, or a running task's first message would hold its v0.3 copy (~0.25 KiB) for the
 * task's whole life because a stream once showed it.
 */
export function toV03TaskForText(task: ListedTask): ReturnType<typeof toV03Task> {
  return mapTask(task, (message) => keptMappingOf<MessageV03>(message, V03_MESSAGE) ?? mapMessage(message));
}

function mapTask(task: ListedTask, mapHistory: (message: Message) => MessageV03): ReturnType<typeof toV03Task> {
  const mapped: Partial<TaskV03> = {
    kind: "task",
    id: task.id,
    contextId: task.contextId,
    status: toV03Status(task.status),
    history: task.history.map(mapHistory),
  };
  if (task.artifacts !== undefined) mapped.artifacts = task.artifacts.map(toV03Artifact);
  mapped.metadata = task.metadata;
  return mapped as TaskV03;
}

export function toV03Status(status: TaskStatus): TaskStatusV03 {
  const mapped: TaskStatusV03 = { state: STATE_TO_V03[status.state], timestamp: status.timestamp };
  if (status.message) mapped.message = toV03Message(status.message);
  return mapped;
}

// A running task's snapshot is mapped on every event it stores (the PostgreSQL store writes v0.3), and
// its history and artifacts keep their objects from one snapshot to the next: each is mapped once.
const V03_MESSAGE = Symbol("v0.3 message");
const V03_ARTIFACT = Symbol("v0.3 artifact");

export function toV03Message(message: Message): MessageV03 {
  return keptMapping(message, V03_MESSAGE, mapMessage);
}

function mapMessage(message: Message): MessageV03 {
  const mapped: Partial<MessageV03> = { kind: "message", role: message.role === "ROLE_USER" ? "user" : "agent" };
  if (message.messageId !== undefined) mapped.messageId = message.messageId;
  mapped.parts = message.parts.map(toV03Part);
  if (message.taskId !== undefined) mapped.taskId = message.taskId;
  if (message.contextId !== undefined) mapped.contextId = message.contextId;
  if (message.metadata) mapped.metadata = message.metadata;
  return mapped as MessageV03;
}

function toV03Part(part: Part): PartV03 {
  const mapped = partContent(part);
  if (part.metadata) mapped.metadata = part.metadata;
  return mapped;
}

function partContent(part: Part): PartV03 {
  if (part.text !== undefined) return { kind: "text", text: part.text };
  const file = {
    ...(part.mediaType ? { mimeType: part.mediaType } : {}),
    ...(part.filename ? { name: part.filename } : {}),
  };
  if (part.raw !== undefined) return { kind: "file", file: { bytes: part.raw, ...file } };
  if (part.url !== undefined) return { kind: "file", file: { uri: part.url, ...file } };
  // v1.0 data is any JSON value; v0.3 data is an object, so anything else travels as { value }.
  const data = part.data;
  const object = typeof data === "object" && data !== null && !Array.isArray(data);
  return { kind: "data", data: object ? (data as Record<string, unknown>) : { value: data } };
}

export function toV03Artifact(artifact: Artifact): ArtifactV03 {
  return keptMapping(artifact, V03_ARTIFACT, mapArtifact);
}

function mapArtifact(artifact: Artifact): ArtifactV03 {
  return withPartsMapped(artifact, toV03Part);
}

/** A logged event's result in v0.3: the task, or a `kind`-tagged update whose `final` says the task ended. */
export function toV03Event(result: TaskEventResult): TaskV03 | TaskUpdateResultV03 {
  if ("task" in result) return toV03Task(result.task) as TaskV03;
  if ("statusUpdate" in result) {
    const update = result.statusUpdate;
    const mapped: TaskUpdateResultV03 = {
      kind: "status-update",
      taskId: update.taskId,
      contextId: update.contextId,
      status: toV03Status(update.status),
      final: isTerminalState(update.status.state),
    };
    if (update.metadata) mapped.metadata = update.metadata;
    return mapped;
  }
  return { kind: "artifact-update", ...withArtifactMapped(result.artifactUpdate, toV03Artifact) };
}

// ---- v0.3 → the model -----------------------------------------------------------------------------------

/** A v0.3 message of a request → the model's (checked in its v0.3 shape first: errors name v0.3 fields). */
export function readV03Message(value: unknown, field = "params.message"): Message {
  return fromV03Message(checkedV03Message(value, field));
}

/** A request's v0.3 message checked in its own shape; -32602 naming the v0.3 field otherwise. */
export function checkedV03Message(value: unknown, field: string): MessageV03 {
  const parsed = MessageV03.safeParse(value);
  if (!parsed.success) throw InvalidParamsError.fromZod(parsed.error, field);
  return parsed.data;
}

export function fromV03Message(message: MessageV03): Message {
  return {
    ...(message.messageId === undefined ? {} : { messageId: message.messageId }),
    ...(message.contextId === undefined ? {} : { contextId: message.contextId }),
    ...(message.taskId === undefined ? {} : { taskId: message.taskId }),
    role: ROLE_FROM_V03[message.role],
    parts: message.parts.map(fromV03Part),
    ...(message.metadata ? { metadata: message.metadata } : {}),
  };
}

function fromV03Part(part: PartV03): Part {
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

export function fromV03Status(status: TaskStatusV03): TaskStatus {
  return {
    state: STATE_FROM_V03[status.state],
    ...(status.message ? { message: fromV03Message(status.message) } : {}),
    timestamp: status.timestamp,
  };
}

function fromV03Artifact(artifact: ArtifactV03): Artifact {
  return withPartsMapped(artifact, fromV03Part);
}

export function fromV03Task(task: TaskV03): Task {
  return {
    id: task.id,
    contextId: task.contextId,
    status: fromV03Status(task.status),
    artifacts: task.artifacts.map(fromV03Artifact),
    history: task.history.map(fromV03Message),
    metadata: task.metadata as TaskMetadata,
  };
}

/** A v0.3 logged event's result → the model's (the v0.3 `final` flag is the state's to say). */
export function fromV03Event(result: TaskV03 | TaskUpdateResultV03): TaskEventResult {
  if (result.kind === "task") return { task: fromV03Task(result) };
  if (result.kind === "status-update") {
    return {
      statusUpdate: {
        taskId: result.taskId,
        contextId: result.contextId,
        status: fromV03Status(result.status),
        ...(result.metadata ? { metadata: result.metadata } : {}),
      },
    };
  }
  return { artifactUpdate: withArtifactMapped(result, fromV03Artifact) };
}

// ---- shared ------------------------------------------------------------------------------------------

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
