import type { PushDelivery } from "@a2a-partner/a2a-core";
import type { Database } from "../database.js";
import { leaseDuration } from "../tasks/rows.js";
import { type ClaimedRow, COMPLETE_MANY, toPushDelivery } from "./push-delivery-sql.js";

interface Waiting {
  key: { taskId: string; seq: number; configId: string };
  resolve: (next: PushDelivery | undefined) => void;
  reject: (error: unknown) => void;
}

/** Completes one statement carries at most. */
const MAX_BATCH = 256;

/**
 * The queue's completes, one statement at a time per owner and lease: those that come while one is under
 * way wait and go together in the next (`COMPLETE_MANY`), so under load a tick's completes cost one round
 * trip, and alone one costs what it did. Each still deletes only a row its owner holds and hands on only
 * its own config's next delivery; two of one config never share a statement (the later waits).
 */
export class CompleteBatches {
  private readonly waiting = new Map<string, Waiting[]>();
  private readonly running = new Set<string>();

  constructor(private readonly db: Database) {}

  complete(owner: string, leaseMs: number, key: Waiting["key"]): Promise<PushDelivery | undefined> {
    const group = `${owner}\n${leaseMs}`;
    return new Promise((resolve, reject) => {
      const queue = this.waiting.get(group) ?? [];
      queue.push({ key, resolve, reject });
      this.waiting.set(group, queue);
      if (!this.running.has(group)) void this.run(group, owner, leaseMs);
    });
  }

  private async run(group: string, owner: string, leaseMs: number): Promise<void> {
    this.running.add(group);
    try {
      for (;;) {
        const batch = this.take(group);
        if (batch.length === 0) return;
        await this.send(batch, owner, leaseMs);
      }
    } finally {
      this.running.delete(group);
    }
  }

  /** The next batch: the oldest waiting, at most one per config. */
  private take(group: string): Waiting[] {
    const queue = this.waiting.get(group) ?? [];
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const configs = new Set<string>();
    for (const waiting of queue) {
      const config = `${waiting.key.taskId}/${waiting.key.configId}`;
      if (batch.length >= MAX_BATCH || configs.has(config)) rest.push(waiting);
      else {
        configs.add(config);
        batch.push(waiting);
      }
    }
    if (rest.length > 0) this.waiting.set(group, rest);
    else this.waiting.delete(group);
    return batch;
  }

  private async send(batch: Waiting[], owner: string, leaseMs: number): Promise<void> {
    try {
      const { rows } = await this.db.query<ClaimedRow>(
        COMPLETE_MANY,
        [
          owner,
          leaseDuration(leaseMs),
          batch.map((w) => w.key.taskId),
          batch.map((w) => w.key.configId),
          batch.map((w) => w.key.seq),
        ],
        { name: "a2a_push_complete_many" },
      );
      const next = new Map(rows.map((row) => [`${row.task_id}/${row.config_id}`, toPushDelivery(row)]));
      for (const waiting of batch) waiting.resolve(next.get(`${waiting.key.taskId}/${waiting.key.configId}`));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }
}
