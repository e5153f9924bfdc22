import type { PushConfig, PushConfigStore, PutPushConfigResult } from "../ports/push-configs.js";
import {
  type PushClaimOptions,
  type PushDelivery,
  type PushDeliveryQueue,
  pushReceiverOf,
} from "../ports/push-deliveries.js";
import type { DeliveryRow, InMemoryPushLedger } from "./in-memory-push-ledger.js";

/**
 * Push configs in process memory, over the tasks of an `InMemoryTaskStore` (a task of another workspace
 * looks unknown). Their deliveries are written by that store's event log (`InMemoryPushDeliveryQueue`).
 */
export class InMemoryPushConfigStore implements PushConfigStore {
  /** @internal built by `createInMemoryStores` over its task store's push state. */
  constructor(private readonly ledger: InMemoryPushLedger) {}

  async put(workspaceId: string, config: PushConfig, maxPerTask: number): Promise<PutPushConfigResult> {
    if (!this.hasTask(workspaceId, config.taskId)) return { kind: "task-not-found" };
    const configs = this.ledger.configsOf(config.taskId);
    if (!configs?.has(config.id) && (configs?.size ?? 0) >= maxPerTask) return { kind: "too-many" };
    return { kind: "stored", config: this.ledger.putConfig(config) };
  }

  async get(workspaceId: string, taskId: string, configId: string): Promise<PushConfig | undefined> {
    if (!this.hasTask(workspaceId, taskId)) return undefined;
    const state = this.ledger.configsOf(taskId)?.get(configId);
    return state ? structuredClone(state.config) : undefined;
  }

  async list(workspaceId: string, taskId: string): Promise<PushConfig[] | undefined> {
    if (!this.hasTask(workspaceId, taskId)) return undefined;
    return [...(this.ledger.configsOf(taskId)?.values() ?? [])].map((state) => structuredClone(state.config));
  }

  async delete(workspaceId: string, taskId: string, configId: string): Promise<boolean | undefined> {
    if (!this.hasTask(workspaceId, taskId)) return undefined;
    return this.ledger.deleteConfig(taskId, configId);
  }

  private hasTask(workspaceId: string, taskId: string): boolean {
    return this.ledger.hasTask(workspaceId, taskId);
  }
}

/**
 * The delivery queue of the in-memory stores: leases by the store's clock, one delivery in flight per
 * config, given-up deliveries kept. For one process (tests, embedding, demos); durable stores share it
 * between instances.
 */
export class InMemoryPushDeliveryQueue implements PushDeliveryQueue {
  /** @internal built by `createInMemoryStores` over its task store's push state. */
  constructor(private readonly ledger: InMemoryPushLedger) {}

  async claim(owner: string, limit: number, leaseMs: number, options?: PushClaimOptions): Promise<PushDelivery[]> {
    const { ledger } = this;
    const now = ledger.clock();
    const count = Number.isFinite(limit) ? Math.max(0, Math.floor(limit)) : 0;
    const workspaces = new Set(options?.skipWorkspaces ?? []);
    const receivers = new Set(
      (options?.skipReceivers ?? []).map(({ workspace, receiver }) => `${workspace} ${receiver}`),
    );
    const receiverOf = (row: DeliveryRow) =>
      pushReceiverOf(ledger.configsOf(row.taskId)?.get(row.configId)?.config.url ?? "");
    const passed = (row: DeliveryRow) =>
      workspaces.has(row.workspaceId) || (receivers.size > 0 && receivers.has(`${row.workspaceId} ${receiverOf(row)}`));
    const claimed: PushDelivery[] = [];
    const rows = ledger.claimable(now).filter((row) => !passed(row));
    for (const row of rows.slice(0, count)) {
      const delivery = ledger.claim(row, owner, leaseMs, now);
      if (delivery) claimed.push(delivery);
    }
    return claimed;
  }

  async complete(owner: string, delivery: PushDelivery, leaseMs: number): Promise<PushDelivery | undefined> {
    const { ledger } = this;
    const row = ledger.heldBy(owner, delivery.id);
    if (!row) return undefined;
    const next = ledger.remove(row)?.pending[0];
    const now = ledger.clock();
    if (!next || next.dueAt > now || (next.claim && next.claim.expiresAt > now)) return undefined;
    return ledger.claim(next, owner, leaseMs, now);
  }

  async retry(owner: string, delivery: PushDelivery, retryAt: Date, lastError: string): Promise<void> {
    const row = this.ledger.heldBy(owner, delivery.id);
    if (!row) return;
    delete row.claim;
    row.dueAt = retryAt.getTime();
    row.lastError = lastError;
  }

  async giveUp(owner: string, delivery: PushDelivery, reason: string): Promise<void> {
    const { ledger } = this;
    const row = ledger.heldBy(owner, delivery.id);
    if (!row) return;
    ledger.remove(row);
    ledger.givenUp.push({ id: row.id, taskId: row.taskId, configId: row.configId, seq: row.seq, reason });
    // The config's next event is claimable now.
    ledger.announce();
  }

  async nextDueAt(): Promise<Date | undefined> {
    const { ledger } = this;
    const at = ledger.nextDueAt(ledger.clock());
    return at === undefined ? undefined : new Date(at);
  }

  watch(listener: () => void): () => void {
    return this.ledger.watch(listener);
  }
}
