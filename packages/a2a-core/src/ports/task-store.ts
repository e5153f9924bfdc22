import type { TaskListPage, TaskListQuery } from "./task-list.js";
import type { NewTask, TaskRecord } from "./task-records.js";

/**
 * Persistence of tasks. Implementations must hand out copies: mutating a returned record never changes
 * what is stored.
 */
export interface TaskStore {
  /**
   * Stores a new task together with its first log event (`task`, seq 1) in one step, so a task never
   * exists without the event that announced it.
   */
  create(input: NewTask): Promise<TaskRecord>;

  /** The task as its own workspace sees it; `undefined` for an unknown id or another workspace's task. */
  get(workspaceId: string, taskId: string): Promise<TaskRecord | undefined>;

  /**
   * One page of a workspace's tasks, newest status first (ListTasks). Optional: without it the handler
   * answers ListTasks with UnsupportedOperationError. Both stores of this project implement it.
   */
  list?(workspaceId: string, query: TaskListQuery): Promise<TaskListPage>;

  /**
   * Non-terminal tasks whose lease has expired by the store's clock: the runner that held them is gone.
   * Oldest first, at most `limit`.
   */
  listOrphaned(limit: number): Promise<TaskRecord[]>;

  /**
   * Extends the leases `owner` holds on `taskIds` to the store's clock plus `durationMs`. Returns the ids
   * whose lease was extended; a missing id is a task that ended or was taken over, and its runner
   * should stop. A store may also return an id it could not extend this time but knows is still `owner`'s
   * (PostgreSQL: a row another transaction held, such as a write of that task's events); the next renewal,
   * a third of the lease later, extends it.
   */
  renewLeases(owner: string, taskIds: readonly string[], durationMs: number): Promise<string[]>;
}
