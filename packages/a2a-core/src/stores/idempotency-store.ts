import type { NewTask, TaskRecord } from "./types.js";

/** The result of `IdempotencyStore.createOrGet`. */
export interface CreateOrGetResult {
  record: TaskRecord;
  /** true: this call created the task (and so must dispatch it); false: the key already named a task. */
  created: boolean;
}

/**
 * Idempotent task creation keyed by (workspace, messageId). Of any number of concurrent calls with one
 * key, exactly one creates the task; every other call gets that task back.
 */
export interface IdempotencyStore {
  /** The task a key already names, if any (a retry is answered with it before anything else is checked). */
  get(workspaceId: string, messageId: string): Promise<TaskRecord | undefined>;
  createOrGet(messageId: string, input: NewTask): Promise<CreateOrGetResult>;
}
