import { ThrottledLog } from "@a2a-partner/a2a-core/node-runtime";
import type { Logger } from "pino";
import type { RefusalReason } from "./refusal-reason.ts";

/** One refused credential, as the log says it (never the token). */
export interface Refusal {
  endpoint: "a2a" | "metrics";
  status: number;
  reason: RefusalReason;
  /** The token's id when the token is known (a token of the wrong kind). */
  tokenId?: string;
}

/** How often one cause is logged at most: its first refusal at once, then a count per interval. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;

/**
 * Logs refused credentials at most once per interval per cause (endpoint, status, reason; a2a-core's
 * ThrottledLog): a flood of made-up tokens is two lines a minute, not one per request; a partner's
 * misconfigured token still shows up at once, with its reason (and the token's id, on the first line).
 */
export class RefusalLog extends ThrottledLog<Refusal> {
  constructor(logger: Pick<Logger, "info"> | undefined, intervalMs = REFUSAL_LOG_INTERVAL_MS) {
    super(logger, {
      message: "authentication refused",
      intervalMs,
      causeOf: (refusal) => `${refusal.endpoint} ${refusal.status} ${refusal.reason}`,
      firstLineOnly: ["tokenId"],
    });
  }

  refused(refusal: Refusal): void {
    this.log(refusal);
  }
}
