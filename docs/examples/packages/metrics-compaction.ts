import { startRollupCompaction } from "@a2a-partner/metrics-core";
import { db as pool } from "../embedding/database.ts";

// What the fragment takes as given: a logger.
const logger = { warn: (fields: object, message: string) => console.warn(message, fields) };

// #region snippet
const compaction = startRollupCompaction(pool, {
  onError: (error) => logger.warn({ err: error }, "metrics rollup compaction failed"),
});
// on shutdown
await compaction.stop();
// #endregion snippet
