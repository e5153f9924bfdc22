import { environmentExecutor, type PeriodicJob, startPeriodicJob, type TaskExecutor } from "@a2a-partner/a2a-core";
import { startRollupCompaction } from "@a2a-partner/metrics-core";
import {
  CacheInvalidation,
  createPostgresStores,
  type Database,
  type PostgresStores,
  ReplicaFence,
} from "@a2a-partner/postgres-store";
import type { Logger } from "pino";
import type { ServerConfig } from "../config.ts";
import { SimulatedRobotFleet } from "../fleet/simulated-robot-fleet.ts";

/** The channel the reference server migration's triggers NOTIFY on; the payload is the changed table's name. */
export const CACHE_CHANGES_CHANNEL = "a2a_cache_changes";
/** Where changes to tokens, memberships, ACLs and workspaces announce their transaction id (migration 0004). */
export const ACCESS_CHANGES_CHANNEL = "a2a_access_changes";

/** The server's stores, its caches' invalidation, the executor, and the jobs that keep the data in shape. */
export interface ServerStores {
  stores: PostgresStores;
  invalidation: CacheInvalidation;
  /** With a replica (DATABASE_READ_URL): when its answers to access checks are the primary's. */
  accessFence: ReplicaFence;
  executor: TaskExecutor;
  /** Stops the jobs (waiting for a run under way); `close` then closes the rest. */
  stopJobs(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The stores over `db`, the cache invalidation (tokens, Environments and workflows are served from memory
 * while every change to them is announced), the simulated fleet unless `executor` replaces it, and the
 * periodic jobs: the fleet's execution reconcile and the metrics rollup compaction.
 */
export function openServerStores(
  db: Database,
  config: ServerConfig,
  logger: Logger,
  executor: TaskExecutor | undefined,
): ServerStores {
  const stores = createPostgresStores(db);
  const invalidation = new CacheInvalidation(db, {
    channel: CACHE_CHANGES_CHANNEL,
    onUnavailable: (error) =>
      logger.warn({ err: error }, "cache invalidation unavailable; serving every lookup from the database"),
  });
  const listening = invalidation.start();
  // Without a replica it does nothing; with one, access checks stay on the primary until it is listening.
  const accessFence = new ReplicaFence(db, {
    channel: ACCESS_CHANGES_CHANNEL,
    onUnavailable: (error) =>
      logger.warn({ err: error }, "access-change feed unavailable; access checks read the primary"),
  });
  const fenceListening = accessFence.start();
  // The task events' LISTEN from the start, so the first streams never wait for the periodic re-check.
  void stores.events.listen().catch((error: unknown) => logger.warn({ err: error }, "LISTEN failed; will retry"));
  const fleet = executor
    ? undefined
    : new SimulatedRobotFleet({ db, stepMs: config.robotStepMs, writer: stores.events.writer, invalidation });
  const jobs: PeriodicJob[] = [
    // Folds the metrics deltas the raw tables' triggers append into the rollups, every few seconds.
    startRollupCompaction(db, {
      onError: (error) => logger.warn({ err: error }, "metrics rollup compaction failed"),
    }),
  ];
  if (fleet) {
    // Executions left `running` by a server that died are settled from their task's final state.
    jobs.push(
      startPeriodicJob(() => fleet.reconcileExecutions(), {
        intervalMs: Math.max(1000, config.taskLeaseMs / 2),
        onError: (error) => logger.warn({ err: error }, "execution reconcile failed"),
      }),
    );
  }
  return {
    stores,
    invalidation,
    accessFence,
    executor: executor ?? environmentExecutor(fleet as SimulatedRobotFleet),
    async stopJobs() {
      await Promise.all(jobs.map((job) => job.stop()));
    },
    async close() {
      await Promise.all([listening, fenceListening]);
      await Promise.all([invalidation.close(), accessFence.close()]);
      await stores.events.close();
    },
  };
}
