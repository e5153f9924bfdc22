import { parseOptionsOnly } from "@a2a-partner/a2a-core/node-runtime";
import type { ServerConfig } from "../config.ts";
import { runOperatorOperation } from "./operator-args.ts";

export const PRUNE_USAGE = `  prune --ended-before <duration|ISO-8601> [--dry-run] [--batch-size N]
                                          delete the tasks that ended before then (30d: 30 days ago; at
                                          least 1h ago) with their events and idempotency keys, N (200)
                                          at a time; print {endedBefore, tasks, events, batches, dryRun}
`;

/** `prune --ended-before 30d [--dry-run]`: what `TASK_RETENTION` does in the background, once, now. */
export function pruneCommand(config: ServerConfig, args: string[]): Promise<number> {
  const values = parseOptionsOnly(
    "prune",
    args,
    { "ended-before": { type: "string" }, "dry-run": { type: "boolean" }, "batch-size": { type: "string" } },
    PRUNE_USAGE,
  );
  return runOperatorOperation(config, "prune", {
    endedBefore: values["ended-before"],
    dryRun: values["dry-run"] === true,
    batchSize: values["batch-size"],
  });
}
