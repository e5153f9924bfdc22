import type { Logger } from "../logger.ts";
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

interface Cause {
  /** Refusals since the cause's last line. */
  count: number;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Logs refused credentials at most once per interval per cause (endpoint, status, reason): the first one
 * at once, then, while they go on, one line per interval with how many there were (`count`). A flood of
 * made-up tokens is two lines a minute, not one per request; a partner's misconfigured token still shows
 * up at once, with its reason.
 */
export class RefusalLog {
  readonly #causes = new Map<string, Cause>();
  readonly #logger: Pick<Logger, "info"> | undefined;
  readonly #intervalMs: number;

  constructor(logger: Pick<Logger, "info"> | undefined, intervalMs = REFUSAL_LOG_INTERVAL_MS) {
    this.#logger = logger;
    this.#intervalMs = intervalMs;
  }

  refused(refusal: Refusal): void {
    if (!this.#logger) return;
    const key = `${refusal.endpoint} ${refusal.status} ${refusal.reason}`;
    const cause = this.#causes.get(key);
    if (cause) {
      cause.count++;
      return;
    }
    this.#write(refusal, 1, false);
    this.#causes.set(key, { count: 0, timer: this.#schedule(key, refusal) });
  }

  /** Stops the timers (the counts not yet logged are dropped). */
  close(): void {
    for (const cause of this.#causes.values()) clearTimeout(cause.timer);
    this.#causes.clear();
  }

  #schedule(key: string, refusal: Refusal): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      const cause = this.#causes.get(key);
      if (!cause) return;
      if (cause.count === 0) {
        // A quiet interval: the next refusal of this cause is logged at once again.
        this.#causes.delete(key);
        return;
      }
      const { tokenId: _one, ...withoutToken } = refusal;
      this.#write(withoutToken, cause.count, true);
      cause.count = 0;
      cause.timer = this.#schedule(key, refusal);
    }, this.#intervalMs);
    // Never what keeps a process alive.
    timer.unref?.();
    return timer;
  }

  /** `count` refusals: the first of a cause, or (`summary`) those of the interval since its last line. */
  #write(refusal: Refusal, count: number, summary: boolean): void {
    this.#logger?.info(
      { ...refusal, count, ...(summary ? { intervalMs: this.#intervalMs } : {}) },
      "authentication refused",
    );
  }
}
