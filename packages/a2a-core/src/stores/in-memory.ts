import { isTerminalState } from "../schemas/a2a.js";
import { applyTaskEvent } from "./apply-task-event.js";
import type { EventLog } from "./event-log.js";
import type { CreateOrGetResult, IdempotencyStore } from "./idempotency-store.js";
import type { TaskStore } from "./task-store.js";
import type { NewTask, NewTaskEvent, StoredTaskEvent, TaskRecord } from "./types.js";

interface Entry {
  record: TaskRecord;
  events: StoredTaskEvent[];
  waiters: Set<() => void>;
}

/**
 * Tasks and their events in process memory, for tests, embedding and single-process demos. Everything
 * handed out or taken in is `structuredClone`d, so callers can never mutate stored state.
 */
export class InMemoryTaskStore implements TaskStore {
  /** @internal shared with the event log and the idempotency store built over this store. */
  readonly entries = new Map<string, Entry>();

  async create(input: NewTask): Promise<TaskRecord> {
    return this.insert(input, undefined);
  }

  /** @internal synchronous so the idempotency store can check-and-insert without yielding. */
  insert(input: NewTask, messageId: string | undefined): TaskRecord {
    const { task } = input;
    if (this.entries.has(task.id)) throw new Error(`task ${task.id} already exists`);
    const record: TaskRecord = {
      workspaceId: input.workspaceId,
      task: structuredClone(task),
      lastSeq: 1,
      lease: { ...input.lease },
      createdAt: input.createdAt,
      ...(messageId === undefined ? {} : { messageId }),
    };
    const first: StoredTaskEvent = {
      taskId: task.id,
      seq: 1,
      event: "task",
      result: structuredClone(task),
      createdAt: input.createdAt,
    };
    this.entries.set(task.id, { record, events: [first], waiters: new Set() });
    return structuredClone(record);
  }

  async get(workspaceId: string, taskId: string): Promise<TaskRecord | undefined> {
    const entry = this.entries.get(taskId);
    if (!entry || entry.record.workspaceId !== workspaceId) return undefined;
    return structuredClone(entry.record);
  }

  async listOrphaned(now: string, limit: number): Promise<TaskRecord[]> {
    const cutoff = Date.parse(now);
    return [...this.entries.values()]
      .map((e) => e.record)
      .filter((r) => !isTerminalState(r.task.status.state) && r.lease && Date.parse(r.lease.expiresAt) < cutoff)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt))
      .slice(0, limit)
      .map((r) => structuredClone(r));
  }

  async renewLeases(owner: string, taskIds: readonly string[], expiresAt: string): Promise<string[]> {
    const renewed: string[] = [];
    for (const id of taskIds) {
      const record = this.entries.get(id)?.record;
      if (!record || isTerminalState(record.task.status.state) || record.lease?.owner !== owner) continue;
      record.lease = { owner, expiresAt };
      renewed.push(id);
    }
    return renewed;
  }
}

export class InMemoryEventLog implements EventLog {
  constructor(private readonly tasks: InMemoryTaskStore) {}

  async append(taskId: string, entry: NewTaskEvent): Promise<StoredTaskEvent | undefined> {
    const stored = this.tasks.entries.get(taskId);
    if (!stored) throw new Error(`unknown task ${taskId}`);
    if (isTerminalState(stored.record.task.status.state)) return undefined;
    const event: StoredTaskEvent = {
      taskId,
      seq: stored.record.lastSeq + 1,
      event: entry.event,
      result: structuredClone(entry.result),
      createdAt: entry.createdAt,
    };
    stored.events.push(event);
    stored.record.lastSeq = event.seq;
    stored.record.task = applyTaskEvent(stored.record.task, structuredClone(entry.result));
    const waiters = [...stored.waiters];
    stored.waiters.clear();
    for (const wake of waiters) wake();
    return structuredClone(event);
  }

  async readAfter(taskId: string, afterSeq: number, limit = 1000): Promise<StoredTaskEvent[]> {
    const events = this.tasks.entries.get(taskId)?.events ?? [];
    return events
      .filter((e) => e.seq > afterSeq)
      .slice(0, limit)
      .map((e) => structuredClone(e));
  }

  waitForEvents(taskId: string, afterSeq: number, signal: AbortSignal): Promise<void> {
    const stored = this.tasks.entries.get(taskId);
    if (signal.aborted) return Promise.reject(signal.reason);
    if (!stored || stored.record.lastSeq > afterSeq) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        stored.waiters.delete(wake);
        reject(signal.reason);
      };
      stored.waiters.add(wake);
      signal.addEventListener("abort", onAbort, { once: true });
    });
  }
}

export class InMemoryIdempotencyStore implements IdempotencyStore {
  private readonly keys = new Map<string, string>();

  constructor(private readonly tasks: InMemoryTaskStore) {}

  async get(workspaceId: string, messageId: string): Promise<TaskRecord | undefined> {
    const taskId = this.keys.get(JSON.stringify([workspaceId, messageId]));
    const entry = taskId ? this.tasks.entries.get(taskId) : undefined;
    return entry ? structuredClone(entry.record) : undefined;
  }

  async createOrGet(messageId: string, input: NewTask): Promise<CreateOrGetResult> {
    // Check and insert without an await in between: the event loop makes this atomic.
    const key = JSON.stringify([input.workspaceId, messageId]);
    const existingId = this.keys.get(key);
    const existing = existingId ? this.tasks.entries.get(existingId) : undefined;
    if (existing) return { record: structuredClone(existing.record), created: false };
    const record = this.tasks.insert(input, messageId);
    this.keys.set(key, record.task.id);
    return { record, created: true };
  }
}

export interface InMemoryStores {
  tasks: InMemoryTaskStore;
  events: InMemoryEventLog;
  idempotency: InMemoryIdempotencyStore;
}

/** The three stores over one shared in-memory state. */
export function createInMemoryStores(): InMemoryStores {
  const tasks = new InMemoryTaskStore();
  return { tasks, events: new InMemoryEventLog(tasks), idempotency: new InMemoryIdempotencyStore(tasks) };
}
