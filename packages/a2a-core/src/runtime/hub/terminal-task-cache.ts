import { LRUCache } from "lru-cache";
import type { TaskRecord } from "../../ports/task-records.js";
import { estimateHeapBytes } from "./heap-estimate.js";

export interface TerminalCacheBounds {
  /** Ended tasks kept at most. */
  maxEntries: number;
  /** Their estimated heap, in bytes, at most; one task over a sixteenth of it is never kept. */
  maxBytes: number;
  /** How long one is answered from memory after it was put (default TERMINAL_CACHE_MAX_AGE_MS). */
  maxAgeMs?: number;
}

/**
 * An ended task never changes, but it can be deleted (retention, `prune`: at least an hour after its end).
 * Kept at most this long, an instance stops answering a deleted task within ten minutes, as the others do
 * at once; a hot ended task costs one read every ten minutes.
 */
export const TERMINAL_CACHE_MAX_AGE_MS = 10 * 60_000;

/** The share of the budget one task may take: larger ones are read from the store each time. */
const ENTRY_SHARE = 16;

/**
 * Tasks that have ended, by id: a terminal task never changes again, so serving it from memory is exact.
 * Bounded by count and by estimated heap bytes (a task at the request bounds can weigh hundreds of KiB
 * once parsed, so a count alone lets a caller pin the heap); the least recently used go first. The size
 * is estimated once, when a task is put, never on a lookup. Records are frozen, never handed out to mutate.
 */
export class TerminalTaskCache {
  private readonly entries: LRUCache<string, TaskRecord> | undefined;
  private readonly maxEntryBytes: number;

  constructor(bounds: TerminalCacheBounds) {
    this.maxEntryBytes = Math.floor(bounds.maxBytes / ENTRY_SHARE);
    this.entries =
      bounds.maxEntries > 0 && this.maxEntryBytes > 0
        ? new LRUCache({
            max: bounds.maxEntries,
            maxSize: bounds.maxBytes,
            maxEntrySize: this.maxEntryBytes,
            ttl: bounds.maxAgeMs ?? TERMINAL_CACHE_MAX_AGE_MS,
          })
        : undefined;
  }

  get(workspaceId: string, taskId: string): TaskRecord | undefined {
    const record = this.entries?.get(taskId);
    return record?.workspaceId === workspaceId ? record : undefined;
  }

  put(record: TaskRecord): void {
    if (!this.entries) return;
    const size = estimateHeapBytes(record, this.maxEntryBytes);
    // Oversized: kept out (and any older copy dropped), so one large task never evicts many small ones.
    if (size > this.maxEntryBytes) this.entries.delete(record.task.id);
    else this.entries.set(record.task.id, record, { size: Math.max(1, size) });
  }

  /** Estimated bytes held (for tests and diagnostics). */
  get bytes(): number {
    return this.entries?.calculatedSize ?? 0;
  }
}
