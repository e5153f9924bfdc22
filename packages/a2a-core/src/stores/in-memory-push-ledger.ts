import type { PushConfig } from "../ports/push-configs.js";
import type { PushDelivery } from "../ports/push-deliveries.js";
import type { StoredTaskEvent } from "../ports/task-records.js";

/** One event on its way to one config, as the in-memory queue keeps it. */
export interface DeliveryRow {
  id: string;
  workspaceId: string;
  taskId: string;
  configId: string;
  seq: number;
  /** ms since the epoch, by the store's clock. */
  durableAt: number;
  dueAt: number;
  attempt: number;
  claim?: { owner: string; expiresAt: number };
  lastError?: string;
}

/** A config and its undelivered, not-given-up deliveries, oldest event first: only the head is claimable. */
export interface ConfigState {
  config: PushConfig;
  pending: DeliveryRow[];
}

/** What the ledger reads of the task store's own entries. */
export interface TaskLookups {
  /** A stored event by task and seq. */
  eventOf(taskId: string, seq: number): StoredTaskEvent | undefined;
  /** The workspace a task belongs to, `undefined` for an unknown task. */
  workspaceOf(taskId: string): string | undefined;
}

/**
 * The push state of the in-memory stores: configs by task, and their deliveries. The event log and the
 * task store call `eventsCommitted` in the same synchronous step that stores the events, so a delivery
 * exists exactly when its event does (the event loop makes each step atomic).
 */
export class InMemoryPushLedger {
  private readonly byTask = new Map<string, Map<string, ConfigState>>();
  private readonly byId = new Map<string, DeliveryRow>();
  /** Given-up deliveries, kept (never tried again) as a durable store keeps them. */
  readonly givenUp: Array<{ id: string; taskId: string; configId: string; seq: number; reason: string }> = [];
  private readonly listeners = new Set<() => void>();
  private nextId = 1;
  private announcing = false;

  constructor(
    readonly clock: () => number,
    private readonly tasks: TaskLookups,
  ) {}

  /** Whether the task exists in this workspace: another workspace's task is reported as unknown. */
  hasTask(workspaceId: string, taskId: string): boolean {
    return this.tasks.workspaceOf(taskId) === workspaceId;
  }

  configsOf(taskId: string): Map<string, ConfigState> | undefined {
    return this.byTask.get(taskId);
  }

  /** Creates or replaces a config; a replacement keeps its place and its pending deliveries. */
  putConfig(config: PushConfig): PushConfig {
    let configs = this.byTask.get(config.taskId);
    if (!configs) {
      configs = new Map();
      this.byTask.set(config.taskId, configs);
    }
    const existing = configs.get(config.id);
    const stored = structuredClone(existing ? { ...config, createdAt: existing.config.createdAt } : config);
    if (existing) existing.config = stored;
    else configs.set(config.id, { config: stored, pending: [] });
    return structuredClone(stored);
  }

  /** Drops the config and its undelivered deliveries; whether there was one. */
  deleteConfig(taskId: string, configId: string): boolean {
    const configs = this.byTask.get(taskId);
    const state = configs?.get(configId);
    if (!configs || !state) return false;
    for (const row of state.pending) this.byId.delete(row.id);
    configs.delete(configId);
    return true;
  }

  /** One delivery per config of the task for each event, in the step that stored the events. */
  eventsCommitted(workspaceId: string, events: readonly StoredTaskEvent[]): void {
    const first = events[0];
    const configs = first && this.byTask.get(first.taskId);
    if (!first || !configs || configs.size === 0) return;
    const now = this.clock();
    for (const state of configs.values()) {
      for (const event of events) {
        const row: DeliveryRow = {
          id: `delivery-${this.nextId++}`,
          workspaceId,
          taskId: event.taskId,
          configId: state.config.id,
          seq: event.seq,
          durableAt: now,
          dueAt: now,
          attempt: 0,
        };
        state.pending.push(row);
        this.byId.set(row.id, row);
      }
    }
    this.announce();
  }

  /** The config heads that may be claimed now, earliest due first. */
  claimable(now: number): DeliveryRow[] {
    const heads: DeliveryRow[] = [];
    for (const configs of this.byTask.values()) {
      for (const { pending } of configs.values()) {
        const head = pending[0];
        if (head && isFree(head, now) && head.dueAt <= now) heads.push(head);
      }
    }
    return heads.sort((a, b) => a.dueAt - b.dueAt || a.durableAt - b.durableAt || a.seq - b.seq);
  }

  /** When the earliest unclaimed head falls due (an expired claim counts from its expiry). */
  nextDueAt(now: number): number | undefined {
    let earliest: number | undefined;
    for (const configs of this.byTask.values()) {
      for (const { pending } of configs.values()) {
        const head = pending[0];
        if (!head || !isFree(head, now)) continue;
        const at = Math.max(head.dueAt, head.claim?.expiresAt ?? head.dueAt);
        if (earliest === undefined || at < earliest) earliest = at;
      }
    }
    return earliest;
  }

  claim(row: DeliveryRow, owner: string, leaseMs: number, now: number): PushDelivery | undefined {
    const state = this.byTask.get(row.taskId)?.get(row.configId);
    const event = this.tasks.eventOf(row.taskId, row.seq);
    if (!state || !event) return undefined;
    row.claim = { owner, expiresAt: now + leaseMs };
    row.attempt += 1;
    return {
      id: row.id,
      workspaceId: row.workspaceId,
      config: structuredClone(state.config),
      event: structuredClone(event),
      attempt: row.attempt,
      durableAt: new Date(row.durableAt).toISOString(),
    };
  }

  /** The row `owner` holds under this id, if it still does (a lease lost and retaken is no longer its). */
  heldBy(owner: string, deliveryId: string): DeliveryRow | undefined {
    const row = this.byId.get(deliveryId);
    return row?.claim?.owner === owner ? row : undefined;
  }

  /** Takes a delivered or given-up row out of its config's queue; the next one becomes the head. */
  remove(row: DeliveryRow): ConfigState | undefined {
    this.byId.delete(row.id);
    const state = this.byTask.get(row.taskId)?.get(row.configId);
    if (state) state.pending = state.pending.filter((pending) => pending !== row);
    return state;
  }

  watch(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the watchers once per turn of the event loop, outside the step that wrote. */
  announce(): void {
    if (this.announcing || this.listeners.size === 0) return;
    this.announcing = true;
    queueMicrotask(() => {
      this.announcing = false;
      for (const listener of [...this.listeners]) listener();
    });
  }
}

function isFree(row: DeliveryRow, now: number): boolean {
  return row.claim === undefined || row.claim.expiresAt <= now;
}
