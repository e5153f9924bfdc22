import type { TaskSubscription } from "./task-subscription.js";

/**
 * Every open stream of the process, with one tick for all of them: no timer per stream. A stream that
 * wrote nothing for about `keepAliveMs` gets a `: keep-alive` comment (the gap between two writes never
 * exceeds `keepAliveMs`), and a client that stays behind for a third of `keepAliveMs` is dropped.
 */
export class OpenStreams {
  private readonly streams = new Set<TaskSubscription>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly tickMs: number;
  /** How long a client may stay over its backlog bound before it is dropped. */
  private readonly backlogGraceMs: number;

  constructor(
    private readonly keepAliveMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    // A keep-alive goes out between `keepAliveMs - tickMs` and `keepAliveMs` after a stream's last write.
    // A tick of a second at most makes that 14-15 s by default (a tick of a third made it 10-15 s): each
    // keep-alive is a socket write, the main cost of a server holding thousands of idle streams. Going
    // through the streams once a second costs far less than the writes it saves.
    this.tickMs = Math.max(5, Math.min(1_000, Math.floor(keepAliveMs / 3)));
    this.backlogGraceMs = keepAliveMs / 3;
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
    // Writing once `keepAliveMs - tickMs` has passed keeps every gap under keepAliveMs.
    const due = now - (this.keepAliveMs - this.tickMs);
    for (const stream of this.streams) {
      if (stream.behind) stream.checkBacklog(now, this.backlogGraceMs);
      else if (stream.wroteSinceTick) {
        // A busy stream needs no keep-alive: what it wrote since the last tick counts as written now.
        stream.wroteSinceTick = false;
        stream.lastWriteAt = now;
      } else if (stream.lastWriteAt <= due) stream.keepAlive(now);
    }
  }
}
