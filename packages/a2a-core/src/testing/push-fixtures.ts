import { afterEach } from "vitest";
import type { A2APushStores } from "../ports/a2a-stores.js";
import type { PushConfig } from "../ports/push-configs.js";
import type { PushDelivery } from "../ports/push-deliveries.js";
import type { StoreContractContext } from "./store-contract-context.js";
import { sleep } from "./store-fixtures.js";

/** A config of `taskId` with a receiver of its own (nothing is ever sent to it). */
export function pushConfig(taskId: string, overrides: Partial<PushConfig> = {}): PushConfig {
  return {
    id: `config-${crypto.randomUUID()}`,
    taskId,
    url: `https://receiver.example.com/a2a/${crypto.randomUUID()}`,
    version: "0.3",
    createdAt: new Date().toISOString(),
    ...overrides,
  };
}

/** A dispatcher's name, unique to the case that uses it. */
export function owner(name: string): string {
  return `${name}-${crypto.randomUUID()}`;
}

/**
 * The push side of the stores, or the case is skipped (a store without push runs no push case). Configs
 * the case made (`track`) are deleted after it, so their undelivered deliveries never reach a later case's
 * claims: every case shares one store and `claim` takes due deliveries of any task.
 */
export function pushCases(current: () => StoreContractContext) {
  const made: Array<{ push: A2APushStores; workspaceId: string; taskId: string; configId: string }> = [];
  afterEach(async () => {
    for (const { push, workspaceId, taskId, configId } of made.splice(0)) {
      await push.configs.delete(workspaceId, taskId, configId);
    }
  });
  return {
    push(skip: () => void): A2APushStores {
      const push = current().stores.push;
      if (!push) {
        skip();
        throw new Error("skipped: these stores have no push side");
      }
      return push;
    },
    track(push: A2APushStores, workspaceId: string, configs: readonly PushConfig[]): void {
      for (const config of configs) made.push({ push, workspaceId, taskId: config.taskId, configId: config.id });
    },
  };
}

/** Claims for `owner` and keeps the deliveries of `taskIds` (`claim` may also take other tasks' due ones). */
export async function claimOf(
  push: A2APushStores,
  owner: string,
  taskIds: readonly string[],
  leaseMs = 60_000,
): Promise<PushDelivery[]> {
  const claimed = await push.deliveries.claim(owner, 1000, leaseMs);
  return claimed.filter((delivery) => taskIds.includes(delivery.event.taskId)).sort(byTaskConfigSeq);
}

/** Claims again and again until `found` holds of the claimed deliveries or `ms` pass (leases, retries). */
export async function claimUntil(
  push: A2APushStores,
  owner: string,
  taskIds: readonly string[],
  found: (deliveries: PushDelivery[]) => boolean,
  ms = 5_000,
): Promise<PushDelivery[]> {
  const until = Date.now() + ms;
  for (;;) {
    const deliveries = await claimOf(push, owner, taskIds);
    if (found(deliveries) || Date.now() > until) return deliveries;
    await sleep(25);
  }
}

/** What a delivery is for: `configId@seq`, for order-free comparisons. */
export function target(delivery: PushDelivery): string {
  return `${delivery.config.id}@${delivery.event.seq}`;
}

function byTaskConfigSeq(a: PushDelivery, b: PushDelivery): number {
  return (
    a.event.taskId.localeCompare(b.event.taskId) || a.config.id.localeCompare(b.config.id) || a.event.seq - b.event.seq
  );
}
