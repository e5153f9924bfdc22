import type { NewTask, TaskRecord } from "./task-records.js";

/** The result of `IdempotencyStore.createOrGet`. */
export interface CreateOrGetResult {
  record: TaskRecord;
  /** true: this call created the task (and so must dispatch it); false: the key already named a task. */
  created: boolean;
}

/**
 * Idempotent task creation keyed by (workspace, messageId): the one place that decides "a new task, or
 * the one this key already names", so a task start is one call. Of any number of concurrent calls with
 * one key, exactly one creates the task; every other call gets that task back.
 */
export interface IdempotencyStore {
  /** The task a key already names, if any (a retry is answered with it before anything else is checked). */
  get(workspaceId: string, messageId: string): Promise<TaskRecord | undefined>;
  /**
   * Creates the task with its seq-1 `task` event, or returns the task `messageId` already names in
   * `input.workspaceId`. Without a messageId there is no idempotency: the call always creates the task.
   * Keep a copy of `input`: its first message may be frozen, with bulky fields read from JSON text on each
   * access (any copy, `structuredClone` or JSON, reads it as a plain message).
   */
  createOrGet(messageId: string | undefined, input: NewTask): Promise<CreateOrGetResult>;
}
