import { type AppendDependencies, dependenciesSucceeded } from "../ports/append-dependencies.js";
import { applyTaskEvent } from "../ports/apply-task-event.js";
import {
  checkNumberedAppend,
  type EventLog,
  type NumberedAppend,
  type TaskChangeListener,
} from "../ports/event-log.js";
import type { CreateOrGetResult, IdempotencyStore } from "../ports/idempotency-store.js";
import { pageOf, type TaskListPage, type TaskListQuery } from "../ports/task-list.js";
import type { NewTask, NewTaskEvent, StoredTaskEvent, TaskRecord } from "../ports/task-records.js";
import type { TaskStore } from "../ports/task-store.js";
import { isTerminalState } from "../protocol/schemas/a2a.js";
import { InMemoryPushConfigStore, InMemoryPushDeliveryQueue } from "./in-memory-push.js";
import { InMemoryPushLedger } from "./in-memory-push-ledger.js";

/** What readAfter returns at most when its caller names no usable limit (as the durable stores do). */
const DEFAULT_READ_LIMIT = 1000;

/**
 * A caller's number as a count of rows, read the way a SQL store reads it: whole, never negative, and
 * `fallback` when it is no finite number (so -1 never means "all but the last", as `slice` would).
 */
function asCount(value: number, fallback: number): number {
  return Number.isFinite(value) ? Math.max(0, Math.floor(value)) : fallback;
}

/** Oldest first by the instant (not the text: offsets differ), then by id, as the SQL store orders. */
function byCreation(a: TaskRecord, b: TaskRecord): number {
  return (
    Date.parse(a.createdAt) - Date.parse(b.createdAt) || (a.task.id < b.task.id ? -1 : a.task.id > b.task.id ? 1 : 0)
  );
}

interface Entry {
  record: TaskRecord;
  events: StoredTaskEvent[];
  watchers: Set<TaskChangeListener>;
}

/**
 * Tasks and their events in process memory, for tests, embedding and single-process demos. Everything
 * handed out or taken in is `structuredClone`d, so callers can never mutate stored state.
 */
export class InMemoryTaskStore implements TaskStore {
  /** @internal shared with the event log and the idempotency store built over this store. */
  readonly entries = new Map<string, Entry>();
  /** @internal push configs and deliveries, written in the same step as the events they are for. */
  readonly push: InMemoryPushLedger;

  /** `clock`: the store's own clock (ms since the epoch), which decides lease and delivery times. */
  constructor(private readonly clock: () => number = Date.now) {
    this.push = new InMemoryPushLedger(clock, {
      // seq starts at 1 and grows by one without gaps, so a task's events are indexed by seq.
      eventOf: (taskId, seq) => this.entries.get(taskId)?.events[seq - 1],
      workspaceOf: (taskId) => this.entries.get(taskId)?.record.workspaceId,
    });
  }

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
      lease: { owner: input.lease.owner, expiresAt: new Date(this.clock() + input.lease.durationMs).toISOString() },
      createdAt: input.createdAt,
      ...(messageId === undefined ? {} : { messageId }),
    };
    const first: StoredTaskEvent = {
      taskId: task.id,
      seq: 1,
      event: "task",
      result: { task: structuredClone(task) },
      createdAt: input.createdAt,
    };
    this.entries.set(task.id, { record, events: [first], watchers: new Set() });
    // The start's own configs are stored with the task, and the `task` event is their first delivery.
    for (const config of input.pushConfigs ?? []) this.push.putConfig({ ...config, taskId: task.id });
    this.push.eventsCommitted(input.workspaceId, [first]);
    return structuredClone(record);
  }

  async get(workspaceId: string, taskId: string): Promise<TaskRecord | undefined> {
    const entry = this.entries.get(taskId);
    if (!entry || entry.record.workspaceId !== workspaceId) return undefined;
    return structuredClone(entry.record);
  }

  async list(workspaceId: string, query: TaskListQuery): Promise<TaskListPage> {
    const mine = [...this.entries.values()]
      .filter((e) => e.record.workspaceId === workspaceId)
      .map((e) => e.record.task);
    return structuredClone(pageOf(mine, query));
  }

  async listOrphaned(limit: number): Promise<TaskRecord[]> {
    const cutoff = this.clock();
    return [...this.entries.values()]
      .map((e) => e.record)
      .filter((r) => !isTerminalState(r.task.status.state) && r.lease && Date.parse(r.lease.expiresAt) < cutoff)
      .sort(byCreation)
      .slice(0, asCount(limit, 0))
      .map((r) => structuredClone(r));
  }

  async renewLeases(owner: string, taskIds: readonly string[], durationMs: number): Promise<string[]> {
    const expiresAt = new Date(this.clock() + durationMs).toISOString();
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
    this.store(stored, event, applyTaskEvent(stored.record.task, structuredClone(entry.result)));
    this.tasks.push.eventsCommitted(stored.record.workspaceId, [event]);
    return structuredClone(event);
  }

  async appendNumbered(append: NumberedAppend, dependsOn?: AppendDependencies): Promise<boolean> {
    if (dependsOn?.length) await dependenciesSucceeded(dependsOn);
    const stored = this.tasks.entries.get(append.taskId);
    if (!stored) throw new Error(`unknown task ${append.taskId}`);
    checkNumberedAppend(append);
    const { record } = stored;
    if (isTerminalState(record.task.status.state) || record.lastSeq !== append.prevSeq) return false;
    const events = append.events.map((event) => structuredClone(event));
    const last = events.at(-1) as StoredTaskEvent;
    stored.events.push(...events.slice(0, -1));
    this.store(stored, last, structuredClone(append.snapshot));
    this.tasks.push.eventsCommitted(record.workspaceId, events);
    return true;
  }

  async readAfter(taskId: string, afterSeq: number, limit = DEFAULT_READ_LIMIT): Promise<StoredTaskEvent[]> {
    const events = this.tasks.entries.get(taskId)?.events ?? [];
    const after = asCount(afterSeq, 0);
    return events
      .filter((e) => e.seq > after)
      .slice(0, asCount(limit, DEFAULT_READ_LIMIT))
      .map((e) => structuredClone(e));
  }

  watch(taskId: string, listener: TaskChangeListener): () => void {
    const stored = this.tasks.entries.get(taskId);
    if (!stored) {
      // No such task: say so once (as a store would after its next check), and there is nothing to stop.
      queueMicrotask(() => listener(undefined));
      return () => {};
    }
    stored.watchers.add(listener);
    return () => stored.watchers.delete(listener);
  }

  private store(stored: Entry, event: StoredTaskEvent, snapshot: TaskRecord["task"]): void {
    stored.events.push(event);
    stored.record.lastSeq = event.seq;
    stored.record.task = snapshot;
    for (const listener of [...stored.watchers]) listener(event.seq);
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

  async createOrGet(messageId: string | undefined, input: NewTask): Promise<CreateOrGetResult> {
    if (messageId === undefined) return { record: this.tasks.insert(input, undefined), created: true };
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
  /** Push configs and the delivery queue the event log fills (push notifications are on with these). */
  push: { configs: InMemoryPushConfigStore; deliveries: InMemoryPushDeliveryQueue };
}

/**
 * The stores over one shared in-memory state, push included; `clock` decides lease expiry and when
 * deliveries fall due (default `Date.now`).
 */
export function createInMemoryStores(options: { clock?: () => number } = {}): InMemoryStores {
  const tasks = new InMemoryTaskStore(options.clock);
  return {
    tasks,
    events: new InMemoryEventLog(tasks),
    idempotency: new InMemoryIdempotencyStore(tasks),
    push: { configs: new InMemoryPushConfigStore(tasks.push), deliveries: new InMemoryPushDeliveryQueue(tasks.push) },
  };
}
