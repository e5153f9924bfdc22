import type { TaskExecutor } from "../ports/task-executor.js";
import { EnvironmentContext } from "./environment-context.js";
import type { EnvironmentExecutor } from "./environment-executor-types.js";
import { environmentOfStart } from "./environment-start.js";

/**
 * A `TaskExecutor` whose tasks run in Environments: every start names one (`params.metadata.storeId`, or
 * the workspace's default Environment, else -32602), the task keeps it as `metadata.storeId`, and
 * `execute` gets it with the task's text (`EnvironmentTaskContext`). The reference server's robots work
 * this way; a generic A2A agent implements `TaskExecutor` itself and needs no storeId.
 */
export function environmentExecutor(executor: EnvironmentExecutor): TaskExecutor {
  const adapted: TaskExecutor = {
    execute: (context) => executor.execute(new EnvironmentContext(context)),
    prepareStart: (context) => environmentOfStart(executor, context),
  };
  if (executor.reply) adapted.reply = (context) => executor.reply?.(context) ?? Promise.resolve(undefined);
  return adapted;
}
