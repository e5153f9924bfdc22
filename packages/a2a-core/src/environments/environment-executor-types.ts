import type { AgentReply, ReplyContext, TaskExecutionContext, TaskOutcome } from "../ports/task-executor.js";

/**
 * What an executor working in Environments is given for one task: the port's context, with the
 * Environment the task runs in and its text.
 */
export interface EnvironmentTaskContext extends TaskExecutionContext {
  /** `params.metadata.storeId`, or the workspace's default Environment: where the task runs. */
  readonly storeId: string;
  /** The task in plain language: the message's text parts joined with "\n", trimmed. */
  readonly text: string;
}

/**
 * An executor whose tasks run in Environments (a store and its robots, in the reference server), named by
 * `params.metadata.storeId`. `environmentExecutor(…)` makes it a `TaskExecutor`.
 */
export interface EnvironmentExecutor {
  /** As `TaskExecutor.execute`, with the task's Environment and text in the context. */
  execute(context: EnvironmentTaskContext): Promise<TaskOutcome>;

  /** As `TaskExecutor.reply`: asked first, before the Environment is. */
  reply?(context: ReplyContext): Promise<AgentReply | undefined>;

  /**
   * Whether `storeId` names an Environment of the workspace. Optional: without it every storeId is
   * accepted. A `false` answer fails the start with -32602 on `params.metadata.storeId`.
   */
  hasEnvironment?(workspaceId: string, storeId: string): Promise<boolean>;

  /**
   * The storeId of the workspace's default Environment, or undefined if it names none. Optional: asked
   * only for a start without `params.metadata.storeId` (generic A2A clients do not know the field);
   * without it, or without a default, such a start fails with -32602 on `params.metadata.storeId`.
   */
  defaultEnvironment?(workspaceId: string): Promise<string | undefined>;
}
