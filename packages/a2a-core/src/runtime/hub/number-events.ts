import { applyTaskEvent } from "../../ports/apply-task-event.js";
import type { NewTaskEvent, StoredTaskEvent, TaskRecord } from "../../ports/task-records.js";
import type { Task } from "../../protocol/schemas/a2a.js";

/**
 * The owner's numbering of new events: each gets the next sequence number after the task's last, and
 * the snapshot is the task after all of them (what the store keeps beside them).
 */
export function numberEvents(
  record: TaskRecord,
  entries: readonly NewTaskEvent[],
): { stored: StoredTaskEvent[]; snapshot: Task } {
  const prevSeq = record.lastSeq;
  let snapshot = record.task;
  const stored: StoredTaskEvent[] = entries.map((entry, index) => {
    snapshot = applyTaskEvent(snapshot, entry.result);
    return {
      taskId: record.task.id,
      seq: prevSeq + 1 + index,
      event: entry.event,
      result: entry.result,
      createdAt: entry.createdAt,
    };
  });
  return { stored, snapshot };
}
