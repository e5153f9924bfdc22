import type { StreamTicker, TaskSubscription } from "./task-subscription.js";

/**
 * Every open stream of the process, with one tick for all of them: no timer per stream. A stream that
 * wrote nothing for about `keepAliveMs` gets a `: keep-alive` comment (the gap between two writes never
 * exceeds `keepAliveMs`), and a client that stays behind for a third of `keepAliveMs` is dropped.
 *
 * A tick looks only at the streams whose keep-alive may be due (a timing wheel: each stream sits in the
 * slot of the tick that looks at it next) and at those behind, not at every open stream: with thousands
 * held idle, walking them all each second cost more than their keep-alives.
 */
export class OpenStreams implements StreamTicker {
  /** Every open stream, by the tick that looks at it next: slot `tick % wheel.length` (its `wheelSlot`). */
  private readonly wheel: Set<TaskSubscription>[];
  private size = 0;
  /** Streams over their backlog bound, looked at every tick until they catch up or are dropped. */
  private readonly behind = new Set<TaskSubscription>();
  private ticks = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly tickMs: number;
  /** How long after a stream's last write its keep-alive is written (a tick before `keepAliveMs`). */
  private readonly quietMs: number;
  /** How long a client may stay over its backlog bound before it is dropped. */
  private readonly backlogGraceMs: number;
  tickedAt: number;

  constructor(
    keepAliveMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    // A keep-alive goes out between `keepAliveMs - tickMs` and `keepAliveMs` after a stream's last write.
    // A tick of a second at most makes that 14-15 s by default (a tick of a third made it 10-15 s): each
    // keep-alive is a socket write, the main cost of a server holding thousands of idle streams.
    this.tickMs = Math.max(5, Math.min(1_000, Math.floor(keepAliveMs / 3)));
    this.quietMs = keepAliveMs - this.tickMs;
    this.backlogGraceMs = keepAliveMs / 3;
    // Room for the furthest slot a stream is put in (`quietMs` ahead) and the one being looked at.
    this.wheel = Array.from({ length: Math.ceil(this.quietMs / this.tickMs) + 2 }, () => new Set());
    this.tickedAt = clock();
  }

  add(stream: TaskSubscription): void {
    if (stream.wheelSlot >= 0) return;
    if (!this.timer) {
      this.tickedAt = this.clock();
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref?.();
    }
    this.size++;
    this.schedule(stream, this.tickedAt);
    if (stream.behind) this.behind.add(stream);
  }

  delete(stream: TaskSubscription): void {
    if (stream.wheelSlot < 0) return;
    this.unschedule(stream);
    this.behind.delete(stream);
    if (--this.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  noteBehind(stream: TaskSubscription): void {
    if (stream.wheelSlot >= 0) this.behind.add(stream);
  }

  /** Ends every open stream cleanly (shutdown): clients reattach elsewhere. */
  endAll(): void {
    for (const stream of this.wheel.flatMap((slot) => [...slot])) stream.end("shutdown");
  }

  private tick(): void {
    const now = this.clock();
    this.tickedAt = now;
    this.ticks++;
    for (const stream of this.behind) {
      stream.checkBacklog(now, this.backlogGraceMs);
      if (!stream.behind) this.behind.delete(stream);
    }
    // Each stream of the slot moves to a later slot (never this one), or its keep-alive ends it and its
    // end takes it off the wheel: a Set's iteration skips what is deleted from it on the way.
    for (const stream of this.wheel[this.ticks % this.wheel.length] as Set<TaskSubscription>) {
      // A stream behind is not written to; it is looked at again a whole interval on.
      if (!stream.behind && stream.lastWriteAt <= now - this.quietMs) stream.keepAlive();
      if (stream.wheelSlot < 0) continue;
      this.unschedule(stream);
      this.schedule(stream, now);
    }
  }

  /** Puts the stream in the slot of the first tick at which its keep-alive may be due. */
  private schedule(stream: TaskSubscription, now: number): void {
    const dueIn = stream.behind ? this.quietMs : stream.lastWriteAt + this.quietMs - now;
    const ticksAhead = Math.min(Math.max(1, Math.ceil(dueIn / this.tickMs)), this.wheel.length - 1);
    stream.wheelSlot = (this.ticks + ticksAhead) % this.wheel.length;
    this.wheel[stream.wheelSlot]?.add(stream);
  }

  private unschedule(stream: TaskSubscription): void {
    this.wheel[stream.wheelSlot]?.delete(stream);
    stream.wheelSlot = -1;
  }
}
