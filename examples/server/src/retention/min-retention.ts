import { parseDuration } from "@a2a-partner/a2a-core/node-runtime";

/**
 * The youngest a pruned task may be: a stream that was following a task when it ended delivers its last
 * events within seconds, and a client that lost its connection reattaches within seconds too. An hour
 * keeps every such read far from a prune; `TASK_RETENTION` and `prune --ended-before` refuse less.
 */
export const MIN_RETENTION = "1h";
export const MIN_RETENTION_MS = (parseDuration(MIN_RETENTION) as number) * 1000;
