import { compactMetricsRollups } from "@a2a-partner/metrics-core";
import type { Database } from "@a2a-partner/postgres-store";
import type { Logger } from "../logger.ts";

/**
 * How often a server folds the metrics deltas into the rollups. Answers are exact either way (a query
 * reads rollups plus pending deltas); folding keeps the delta tables, which queries scan, to a few
 * seconds of writes.
 */
export const ROLLUP_COMPACTION_INTERVAL_MS = 5_000;

export interface RollupCompaction {
  /** Stops the timer and waits for a fold in progress, so the database can be closed after it. */
  stop(): Promise<void>;
}

/**
 * Folds the metrics deltas on a timer. Every instance runs one: a kind another instance is folding is
 * skipped, not waited for. A tick is skipped while the previous fold still runs (a slow or unreachable
 * database), and the timer never keeps the process alive.
 */
export function startRollupCompaction(
  db: Database,
  logger: Logger,
  intervalMs: number = ROLLUP_COMPACTION_INTERVAL_MS,
): RollupCompaction {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (running) return;
    running = compactMetricsRollups(db)
      .then(
        () => undefined,
        (error: unknown) => logger.warn({ err: error }, "metrics rollup compaction failed"),
      )
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
