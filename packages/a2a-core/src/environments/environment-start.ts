import type { StartContext, StartPreparation } from "../ports/task-executor.js";
import { InvalidParamsError } from "../protocol/errors.js";
import { STORE_ID_REQUIRED } from "../protocol/schemas/params.js";
import { textOfMessage } from "../protocol/text-of-message.js";
import type { EnvironmentExecutor } from "./environment-executor-types.js";

const STORE_ID_FIELD = "params.metadata.storeId";

/**
 * The Environment of a new task: `params.metadata.storeId`, else the workspace's default Environment;
 * refused with -32602 on `params.metadata.storeId` when there is neither, or when `hasEnvironment` says
 * the workspace has no such Environment. It becomes the task's `metadata.storeId`. A task for robots is
 * given in words: a message without a non-empty text part is refused first, on `params.message.parts`.
 */
export async function environmentOfStart(
  executor: EnvironmentExecutor,
  { workspaceId, message, metadata }: StartContext,
): Promise<StartPreparation> {
  if (textOfMessage(message).length === 0) {
    throw InvalidParamsError.forField("params.message.parts", "the message needs at least one non-empty text part");
  }
  // The params schema admits only a bounded string here.
  const requested = typeof metadata.storeId === "string" ? metadata.storeId : undefined;
  // Asked only when the start names no store, so a start that does costs nothing more.
  const storeId = requested ?? (await executor.defaultEnvironment?.(workspaceId));
  if (storeId === undefined) {
    throw InvalidParamsError.forField(
      STORE_ID_FIELD,
      `${STORE_ID_REQUIRED} (your workspace names no default Environment)`,
    );
  }
  if (executor.hasEnvironment && !(await executor.hasEnvironment(workspaceId, storeId))) {
    throw InvalidParamsError.forField(STORE_ID_FIELD, "no Environment with this storeId in your workspace");
  }
  return { metadata: { storeId } };
}
