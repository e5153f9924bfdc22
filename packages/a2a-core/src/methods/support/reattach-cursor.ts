import type { TaskRecord } from "../../ports/task-records.js";
import type { HeaderReader } from "../../protocol/header-reader.js";

/** Where a reattach resumes: after the client's `Last-Event-ID`, else after the newest event (only new ones). */
export function reattachCursor(record: TaskRecord, headers: HeaderReader): number {
  const header = headers.get("last-event-id");
  if (header !== null && /^\d{1,9}$/.test(header.trim())) return Number(header.trim());
  return record.lastSeq;
}
