import type { Database } from "../database.js";

type ListenEvents = NonNullable<Parameters<Database["listen"]>[2]>;

/** Where a `RetriedListen` listens, and how it says it cannot. */
export interface RetriedListenOptions {
  channel: string;
  /** How long to wait before trying LISTEN again when it could not start. Default 5000 ms. */
  retryMs?: number;
  /** LISTEN could not start (it is tried again after `retryMs`). */
  onUnavailable?: (error: unknown) => void;
}

/**
 * A LISTEN on one channel that is tried again every `retryMs` until it works, each failure reported, and
 * that stops for good once closed (a start still under way then lets go of what it opened). What
 * CacheInvalidation and ReplicaFence share.
 */
export class RetriedListen {
  #stop: (() => Promise<void>) | undefined;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #closed = false;
  readonly #retryMs: number;

  constructor(
    private readonly db: Database,
    private readonly options: RetriedListenOptions,
    private readonly handler: (payload: string) => void,
    private readonly events: ListenEvents,
    /** Once LISTEN runs (and this was not closed meanwhile). */
    private readonly onListening: () => void | Promise<void>,
  ) {
    this.#retryMs = options.retryMs ?? 5_000;
  }

  get closed(): boolean {
    return this.#closed;
  }

  async start(): Promise<void> {
    if (this.#closed) return;
    try {
      this.#stop = await this.db.listen(this.options.channel, this.handler, this.events);
      if (this.#closed) {
        await this.#stop();
        return;
      }
      await this.onListening();
    } catch (error) {
      this.report(error);
      this.retryLater(() => void this.start());
    }
  }

  /** Runs `retry` after `retryMs` unless closed by then (one pending retry at a time, never keeping the process alive). */
  retryLater(retry: () => void): void {
    this.#retry = setTimeout(() => {
      if (!this.#closed) retry();
    }, this.#retryMs);
    this.#retry.unref?.();
  }

  report(error: unknown): void {
    try {
      this.options.onUnavailable?.(error);
    } catch {
      // A failing report must not stop the retries.
    }
  }

  /** Marks it closed at once (before the first await), then stops listening. */
  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    return this.#stop?.() ?? Promise.resolve();
  }
}
