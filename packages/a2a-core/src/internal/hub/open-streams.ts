import type { TaskSubscription } from "./task-subscription.js";

/**
 * Every open stream of the process, with one tick for all of them: no timer per stream. A stream that
 * wrote nothing for about `keepAliveMs` gets a `: keep-alive` comment (the gap between two writes never
 * exceeds `keepAliveMs`), and a client that fell behind is dropped if it is still behind.
 */
export class OpenStreams {
  private readonly streams = new Set<TaskSubscription>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly tickMs: number;

  constructor(
    private readonly keepAliveMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.tickMs = Math.max(5, Math.floor(keepAliveMs / 3));
  }

  now(): number {
    return this.clock();
  }

  add(stream: TaskSubscription): void {
    this.streams.add(stream);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref?.();
    }
  }

  delete(stream: TaskSubscription): void {
    this.streams.delete(stream);
    if (this.streams.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /** Ends every open stream cleanly (shutdown): clients reattach elsewhere. */
  endAll(): void {
    for (const stream of [...this.streams]) stream.end("shutdown");
  }

  private tick(): void {
    const now = this.clock();
    // A tick comes every third of the interval, so writing once two thirds have passed keeps every gap
    // under keepAliveMs.
    const due = now - (this.keepAliveMs - this.tickMs);
    for (const stream of this.streams) {
      if (stream.behind) stream.checkBacklog();
      else if (stream.wroteSinceTick) {
        // A busy stream needs no keep-alive: what it wrote since the last tick counts as written now.
        stream.wroteSinceTick = false;
        stream.lastWriteAt = now;
      } else if (stream.lastWriteAt <= due) stream.keepAlive(now);
    }
  }
}
