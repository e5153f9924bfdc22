import type * as Core from "@a2a-partner/a2a-core";
import type { Artifact, ArtifactUpdate, Message, Part, Task } from "@a2a-partner/a2a-core";
import { type Equal, sameType } from "../type-equal.ts";

// #region snippet
interface TaskExecutor {
  execute: (context: TaskExecutionContext) => Promise<TaskOutcome>; // a property: checked strictly (below)
  reply?(context: ReplyContext): Promise<AgentReply | undefined>; // answer with a message, no task (below)
  prepareStart?(context: StartContext): Promise<StartPreparation | undefined>; // check a new start (below)
}

interface StartContext {
  workspaceId: string;
  readonly message: Message; // the message that starts the task
  readonly metadata: Readonly<Record<string, unknown>>; // the request's params.metadata ({} if it sent none)
}

interface StartPreparation {
  metadata?: Record<string, unknown>; // entries the new task's metadata starts with
}

interface ReplyContext {
  workspaceId: string;
  readonly message: Message; // the caller's message, before any task exists
}

interface AgentReply {
  parts: Part[]; // the handler adds the messageId, role "ROLE_AGENT" and the contextId
  metadata?: Record<string, unknown>;
}

interface TaskExecutionContext {
  readonly task: Task; // a copy of the task as created (TASK_STATE_WORKING), made afresh each time it is read
  readonly taskId: string; // the task's id, without copying the task
  workspaceId: string; // whose task it is
  readonly message: Message; // the message that started the task, whole, a fresh copy like `task`
  signal: AbortSignal; // aborted on cancel, on shutdown after the grace period, or when the task ended elsewhere
  emit(update: ExecutorUpdate): Promise<void>; // persists one `update` event, resolves once stored
  nextMessage(): Promise<Message>; // multi-turn: the caller's next message, after an input-required status
}

type ExecutorUpdate =
  | {
      kind: "status";
      state?: "TASK_STATE_WORKING" | "TASK_STATE_INPUT_REQUIRED" | "TASK_STATE_AUTH_REQUIRED";
      message?: string;
      metadata?: Record<string, unknown>;
    }
  | {
      kind: "artifact";
      artifact: Artifact;
      append?: boolean;
      lastChunk?: boolean;
      metadata?: Record<string, unknown>;
    };

interface TaskOutcome {
  state: "TASK_STATE_COMPLETED" | "TASK_STATE_FAILED" | "TASK_STATE_REJECTED";
  message?: string; // becomes the agent message of the final status
  metadata?: Record<string, unknown>; // becomes the metadata of the `finished` event
  artifacts?: ArtifactUpdate[]; // `update` events just before `finished`, in the same commit
  dependsOn?: readonly PromiseLike<unknown>[]; // your writes the end depends on, not awaited (below)
}
// #endregion snippet

// #region environments
interface EnvironmentExecutor {
  execute(context: EnvironmentTaskContext): Promise<TaskOutcome>;
  reply?(context: ReplyContext): Promise<AgentReply | undefined>;
  hasEnvironment?(workspaceId: string, storeId: string): Promise<boolean>; // false: -32602 on params.metadata.storeId
  defaultEnvironment?(workspaceId: string): Promise<string | undefined>; // for a start that names no storeId
}

interface EnvironmentTaskContext extends TaskExecutionContext {
  readonly storeId: string; // params.metadata.storeId, or the default Environment: where the task runs
  readonly text: string; // the message's text parts joined with "\n", trimmed (never empty)
}
// #endregion environments

sameType<Equal<TaskExecutor, Core.TaskExecutor>>();
sameType<Equal<TaskExecutionContext, Core.TaskExecutionContext>>();
sameType<Equal<ExecutorUpdate, Core.ExecutorUpdate>>();
sameType<Equal<TaskOutcome, Core.TaskOutcome>>();
sameType<Equal<ReplyContext, Core.ReplyContext>>();
sameType<Equal<AgentReply, Core.AgentReply>>();
sameType<Equal<StartContext, Core.StartContext>>();
sameType<Equal<StartPreparation, Core.StartPreparation>>();
sameType<Equal<EnvironmentExecutor, Core.EnvironmentExecutor>>();
sameType<Equal<EnvironmentTaskContext, Core.EnvironmentTaskContext>>();
