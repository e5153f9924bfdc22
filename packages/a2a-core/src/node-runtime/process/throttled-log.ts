import type { RuntimeLogger } from "../runtime-logger.js";

export interface ThrottledLogOptions<Fields extends object> {
  /** The lines' message. */
  message: string;
  /** How often one cause is logged at most (ms): its first line at once, then a count per interval. */
  intervalMs: number;
  /** The cause a line counts towards (e.g. endpoint, status and reason). */
  causeOf(fields: Fields): string;
  /** Fields that name one occurrence (an id), written on a cause's first line only, never in a count's. */
  firstLineOnly?: readonly (keyof Fields)[];
}

interface Cause {
  /** Occurrences since the cause's last line. */
  count: number;
  timer: ReturnType<typeof setTimeout>;
}

/**
 * Logs something anyone can cause many times (a refused credential, a malformed request) at most once
 * per interval per cause: the first one at once, then, while they go on, one line per interval with how
 * many there were (`count`, `intervalMs`). A flood is two lines a minute, not one per request; a single
 * occurrence still shows up at once. Its timers never keep the process alive.
 */
export class ThrottledLog<Fields extends object> {
  readonly #causes = new Map<string, Cause>();
  readonly #logger: Pick<RuntimeLogger, "info"> | undefined;
  readonly #options: ThrottledLogOptions<Fields>;

  constructor(logger: Pick<RuntimeLogger, "info"> | undefined, options: ThrottledLogOptions<Fields>) {
    this.#logger = logger;
    this.#options = options;
  }

  log(fields: Fields): void {
    if (!this.#logger) return;
    const key = this.#options.causeOf(fields);
    const cause = this.#causes.get(key);
    if (cause) {
      cause.count++;
      return;
    }
    this.#write(fields, 1, false);
    this.#causes.set(key, { count: 0, timer: this.#schedule(key, fields) });
  }

  /** Stops the timers (the counts not yet logged are dropped). */
  close(): void {
    for (const cause of this.#causes.values()) clearTimeout(cause.timer);
    this.#causes.clear();
  }

  #schedule(key: string, fields: Fields): ReturnType<typeof setTimeout> {
    const timer = setTimeout(() => {
      const cause = this.#causes.get(key);
      if (!cause) return;
      if (cause.count === 0) {
        // A quiet interval: the next occurrence of this cause is logged at once again.
        this.#causes.delete(key);
        return;
      }
      const summary: Record<string, unknown> = { ...(fields as Record<string, unknown>) };
      for (const name of this.#options.firstLineOnly ?? []) delete summary[name as string];
      this.#write(summary, cause.count, true);
      cause.count = 0;
      cause.timer = this.#schedule(key, fields);
    }, this.#options.intervalMs);
    timer.unref?.();
    return timer;
  }

  /** `count` occurrences: the first of a cause, or (`summary`) those of the interval since its last line. */
  #write(fields: object, count: number, summary: boolean): void {
    this.#logger?.info(
      { ...fields, count, ...(summary ? { intervalMs: this.#options.intervalMs } : {}) },
      this.#options.message,
    );
  }
}
