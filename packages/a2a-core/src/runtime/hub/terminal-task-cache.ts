import type { TaskRecord } from "../../ports/task-records.js";

/**
 * Tasks that have ended, by id: a terminal task never changes again, so serving it from memory is exact.
 * Bounded; the least recently used entry goes first. Records are frozen, never handed out to mutate.
 */
export class TerminalTaskCache {
  private readonly entries = new Map<string, TaskRecord>();

  constructor(private readonly capacity: number) {}

  get(workspaceId: string, taskId: string): TaskRecord | undefined {
    const record = this.entries.get(taskId);
    if (!record || record.workspaceId !== workspaceId) return undefined;
    // Refresh its place in the LRU order.
    this.entries.delete(taskId);
    this.entries.set(taskId, record);
    return record;
  }

  put(record: TaskRecord): void {
    if (this.capacity <= 0) return;
    this.entries.delete(record.task.id);
    this.entries.set(record.task.id, record);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
  }
}
