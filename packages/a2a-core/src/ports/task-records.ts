import type { Task, TaskEventResult, TaskUpdateResult } from "../protocol/schemas/a2a.js";
import type { LoggedEventName } from "../protocol/sse/event-names.js";
import type { PushConfig } from "./push-configs.js";

/** A task as stored: its current snapshot plus what the server needs to run and scope it. */
export interface TaskRecord {
  /** The workspace of the partner token that created the task; nobody else may see it. */
  workspaceId: string;
  /** The current snapshot of the task (A2A shape). */
  task: Task;
  /** Sequence number of the newest event in the task's log (1 = the `task` event). */
  lastSeq: number;
  /** The `message.messageId` the task was started with, if any (its idempotency key). */
  messageId?: string;
  /** Which runner holds the task and until when; a non-terminal task with an expired lease is orphaned. */
  lease?: TaskLease;
  /** ISO-8601 UTC. */
  createdAt: string;
}

export interface TaskLease {
  owner: string;
  /** ISO-8601 UTC. */
  expiresAt: string;
}

/** One event of a task's log. `seq` is its SSE `id:`; `event` its SSE `event:` name. */
export interface StoredTaskEvent {
  taskId: string;
  seq: number;
  event: LoggedEventName;
  /** The result of the frame, as a `StreamResponse`: `{ task }` for `task`, an update for `update` and `finished`. */
  result: TaskEventResult;
  /** ISO-8601 UTC. */
  createdAt: string;
}

/**
 * The lease a new task starts with. Its expiry is the store's clock plus `durationMs` (the database's
 * clock for a shared database), so an instance whose own clock runs ahead or behind cannot misjudge
 * another instance's leases.
 */
export interface NewLease {
  owner: string;
  /** How long the lease lasts from now (negative: already expired, for tests). */
  durationMs: number;
}

/** What is needed to create a task: its first snapshot (state `working`) and who runs it. */
export interface NewTask {
  workspaceId: string;
  task: Task;
  lease: NewLease;
  /** ISO-8601 UTC. */
  createdAt: string;
  /**
   * Push configs sent with the start (`configuration.pushNotificationConfig`): stored with the task in
   * the same step, and the seq-1 `task` event gets its deliveries. Ignored by a start whose key already
   * named a task.
   */
  pushConfigs?: readonly PushConfig[];
}

/** An event to append: `update` (progress) or `finished` (the single terminal status-update). */
export interface NewTaskEvent {
  event: Exclude<LoggedEventName, "task">;
  result: TaskUpdateResult;
  /** ISO-8601 UTC. */
  createdAt: string;
}
