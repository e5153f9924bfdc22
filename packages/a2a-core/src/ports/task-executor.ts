import type { Artifact, Message, Part, Task } from "../protocol/schemas/a2a.js";
import type { AppendDependencies } from "./append-dependencies.js";

/** Non-terminal states an executor may report while it works. */
export type ProgressState = "TASK_STATE_WORKING" | "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED";

/** Progress an executor reports; each becomes one `update` event, persisted before it is sent. */
export type ExecutorUpdate =
  | {
      kind: "status";
      /** Defaults to `TASK_STATE_WORKING`. */
      state?: ProgressState;
      /** A short human-readable line, sent as an agent message in the status. */
      message?: string;
      /** Structured progress, e.g. `{ robotId, step, percent }`. */
      metadata?: Record<string, unknown>;
    }
  | {
      kind: "artifact";
      artifact: Artifact;
      append?: boolean;
      lastChunk?: boolean;
      metadata?: Record<string, unknown>;
    };

/** An artifact as an executor reports it (an `update` event carrying an `artifactUpdate`). */
export type ArtifactUpdate = Omit<Extract<ExecutorUpdate, { kind: "artifact" }>, "kind">;

/** How an execution ended, if it was not canceled. */
export interface TaskOutcome {
  state: "TASK_STATE_COMPLETED" | "TASK_STATE_FAILED" | "TASK_STATE_REJECTED";
  message?: string;
  metadata?: Record<string, unknown>;
  /**
   * Artifacts the task ends with: each becomes an `update` event just before `finished`, stored in the
   * same commit (so returning a report here instead of emitting it spares the task one commit's wait).
   */
  artifacts?: ArtifactUpdate[];
  /**
   * Writes of your own the outcome depends on (rows you store beside the task's events, say), not yet
   * awaited: the task's end is stored only if every one of them succeeds, and the updates you emitted
   * count too (the end is refused if one of them could not be stored). A store that commits in batches
   * (postgres-store's group commit) stores the end in the same commit as the last of them instead of
   * after it, so returning them here rather than awaiting them spares the task one commit's wait. When
   * one fails, the task ends `TASK_STATE_FAILED` instead.
   */
  dependsOn?: AppendDependencies;
}

export interface TaskExecutionContext {
  /** The task as it started: a fresh copy each time it is read, so keep what you need from it. */
  readonly task: Task;
  /** The task's id: reading it copies nothing (unlike `task`, a whole task at the request bounds). */
  readonly taskId: string;
  workspaceId: string;
  /**
   * The message that started the task, whole (every part, text, file or data, and its metadata): a fresh
   * copy each time it is read, like `task`. The task's history and metadata are `task`'s.
   */
  readonly message: Message;
  /** Aborted when the task is canceled (or taken from this runner); stop work promptly. */
  signal: AbortSignal;
  /**
   * Persists and publishes one progress event. Resolves once it is stored. Need not be awaited before
   * the next step: events emitted while the task's previous commit is under way are stored together, in
   * order, in the next one. Await them all before returning, or return the outcome with `dependsOn`.
   */
  emit(update: ExecutorUpdate): Promise<void>;
  /**
   * The caller's next message to this task (multi-turn): emit an `input-required` or `auth-required`
   * status, then await this. A message the caller sends with `message.taskId` while the task waits is
   * stored in the task's history (state `working` again) before it is handed over, once, to the
   * execution that runs the task, whichever instance it arrived at. Rejects when the task is canceled.
   */
  nextMessage(): Promise<Message>;
}

/** What `reply` is asked with: the caller's message, before any task exists. */
export interface ReplyContext {
  workspaceId: string;
  /** The message as the caller sent it (all its parts and metadata). */
  readonly message: Message;
}

/** An answer without a task (A2A's `Message` result): the handler adds its id, role and contextId. */
export interface AgentReply {
  parts: Part[];
  metadata?: Record<string, unknown>;
}

/** What `prepareStart` is asked with: a start of a new task, before the task exists. */
export interface StartContext {
  /** The caller's workspace: whose task it would be. */
  workspaceId: string;
  /** The message that starts the task (all its parts and metadata). Do not change it. */
  readonly message: Message;
  /**
   * The request's `params.metadata` (an empty object when it sent none). Read what you need from it
   * while the hook runs; do not keep or change it.
   */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** What `prepareStart` answers: entries the new task's `metadata` starts with. */
export interface StartPreparation {
  /**
   * Added to `task.metadata` (the handler's own `messageId` entry wins over one of the same name). A
   * retry of the start (same messageId) is refused when its `params.metadata` names one of these entries
   * with another value.
   */
  metadata?: Record<string, unknown>;
}

/**
 * The work behind a task (robots, in the reference server). The handler calls `execute` once per task,
 * in the background: a client disconnecting never cancels it.
 *
 * The reference server's robots work in Environments named by `params.metadata.storeId`: they implement
 * `EnvironmentExecutor` and are wrapped with `environmentExecutor(…)`, which adds `storeId` and `text` to
 * the context and checks the Environment in `prepareStart`.
 */
export interface TaskExecutor {
  /**
   * The task's work. A property rather than a method so that its context is checked strictly: an
   * `EnvironmentExecutor` (whose `execute` needs `storeId` and `text`) is refused here, and must be
   * handed over as `environmentExecutor(it)`.
   */
  execute: (context: TaskExecutionContext) => Promise<TaskOutcome>;

  /**
   * Optional: answer a new message with a message instead of a task (a question answered at once, say).
   * Asked before a task is created, for a start whose messageId names no task yet; a reply is the
   * answer of SendMessage (`{ message }`) and the one frame of SendStreamingMessage's stream, and nothing
   * is stored (a retry asks again). `undefined`: the message starts a task, and `execute` runs it.
   */
  reply?(context: ReplyContext): Promise<AgentReply | undefined>;

  /**
   * Optional: asked before a task is created for a start (after `reply`, and only for a request the
   * handler itself accepts). Throw to refuse the start: nothing is stored or dispatched, and the caller
   * gets the error, so throw an A2A error that names the field at fault
   * (`InvalidParamsError.forField("params.metadata.tenant", "is required")` answers -32602 with that
   * field). Return `{ metadata }` to add entries to the new task's `metadata`. Without it every start
   * is accepted and the task's metadata holds only the handler's own `messageId`.
   *
   * Its answer counts only for a new task: a retry of a start whose messageId already names a task gets
   * that task back, whatever this hook says (it may still be asked: the store learns that a start is a
   * retry in the same step that creates a new task). Keep it to checks and look-ups; work with effects
   * belongs in `execute`, which runs once per task.
   */
  prepareStart?(context: StartContext): Promise<StartPreparation | undefined>;
}
