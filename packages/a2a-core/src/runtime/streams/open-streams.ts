import type { StreamTicker, TaskSubscription } from "./task-subscription.js";

/** The most slots the wheel has (an hour of one-second ticks), however long `keepAliveMs` is. */
const MAX_SLOTS = 3_600;

/**
 * Every open stream of the process, with one tick for all of them: no timer per stream. A stream that
 * wrote nothing for about `keepAliveMs` gets a `: keep-alive` comment (the gap between two writes never
 * exceeds `keepAliveMs`, plus however late the tick runs), and a client that stays behind for a third of
 * `keepAliveMs` is dropped.
 *
 * A tick looks only at the streams whose keep-alive may be due, not at every open stream (with thousands
 * held idle, walking them all each second cost more than their keep-alives): a timing wheel, each stream
 * in the slot of the tick before the one its keep-alive falls due in, and looked at every tick from there
 * until it has one. Slots are counted in time from the wheel's start, so a tick that runs late looks at
 * every slot it passed.
 */
export class OpenStreams implements StreamTicker {
  /** The open streams, tick `n`'s in slot `n % wheel.length` (the stream's `wheelSlot`). */
  private readonly wheel: Set<TaskSubscription>[];
  /** The `wheelSlot` of a stream taken off its slot by the tick under way: still open, not yet placed again. */
  private readonly beingLookedAt: number;
  /** The streams the tick under way took off their slots (`endAll` must reach them too). */
  private lookingAt: TaskSubscription[] = [];
  private size = 0;
  /** Streams over their backlog bound, looked at every tick until they catch up or are dropped. */
  private readonly behind = new Set<TaskSubscription>();
  /** When tick 0 began: tick `n` covers `[origin + n × tickMs, origin + (n + 1) × tickMs)`. */
  private origin = 0;
  /** The newest tick whose streams have been looked at. */
  private swept = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly tickMs: number;
  /** How long after a stream's last write its keep-alive is due (a tick before `keepAliveMs`). */
  private readonly quietMs: number;
  /** How long a client may stay over its backlog bound before it is dropped. */
  private readonly backlogGraceMs: number;

  constructor(
    keepAliveMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    if (!(Number.isFinite(keepAliveMs) && keepAliveMs > 0)) {
      throw new RangeError(`keepAliveMs must be a positive number of milliseconds, not ${keepAliveMs}`);
    }
    // A keep-alive goes out between `keepAliveMs - tickMs` and `keepAliveMs` after a stream's last write.
    // A tick of a second at most makes that 14-15 s by default (a tick of a third made it 10-15 s): each
    // keep-alive is a socket write, the main cost of a server holding thousands of idle streams.
    this.tickMs = Math.max(5, Math.min(1_000, Math.floor(keepAliveMs / 3)));
    this.quietMs = Math.max(0, keepAliveMs - this.tickMs);
    this.backlogGraceMs = keepAliveMs / 3;
    // The ticks a stream may wait for (up to `quietMs` ahead, one more after a late tick) and a spare; at
    // most an hour's worth: a stream due later is looked at an hour on and placed again.
    const slots = Math.min(Math.ceil(this.quietMs / this.tickMs) + 3, MAX_SLOTS);
    this.wheel = Array.from({ length: slots }, () => new Set());
    this.beingLookedAt = slots;
  }

  /** The clock the streams' writes are stamped with. */
  now(): number {
    return this.clock();
  }

  add(stream: TaskSubscription): void {
    if (stream.wheelSlot >= 0) return;
    const now = this.clock();
    if (!this.timer) {
      this.origin = now;
      this.swept = 0;
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref?.();
    }
    this.size++;
    this.schedule(stream, now);
    if (stream.behind) this.behind.add(stream);
  }

  delete(stream: TaskSubscription): void {
    if (stream.wheelSlot < 0) return;
    this.wheel[stream.wheelSlot]?.delete(stream);
    stream.wheelSlot = -1;
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
    const open = this.wheel.flatMap((slot) => [...slot]);
    for (const stream of this.lookingAt) if (stream.wheelSlot === this.beingLookedAt) open.push(stream);
    for (const stream of open) stream.end("shutdown");
  }

  private tick(): void {
    const now = this.clock();
    for (const stream of this.behind) {
      stream.checkBacklog(now, this.backlogGraceMs);
      if (stream.behind) continue;
      this.behind.delete(stream);
      // Caught up: its keep-alive falls due from its last write again, not a whole interval on.
      if (stream.wheelSlot >= 0) this.move(stream, now);
    }
    // Every slot up to this tick's (a late tick passed several), and at least the next one (two ticks may
    // fall in one tick's time: node re-arms the interval from its loop's whole-millisecond clock). A
    // stream waits in the slot of the tick before its keep-alive falls due and is looked at every tick
    // from there, so the tick that writes it is the first after it fell due, however the ticks drift.
    const current = Math.max(this.swept + 1, Math.floor((now - this.origin) / this.tickMs));
    const last = Math.min(current, this.swept + this.wheel.length);
    const lookedAt: TaskSubscription[] = [];
    this.lookingAt = lookedAt;
    for (let n = this.swept + 1; n <= last; n++) {
      const slot = this.wheel[n % this.wheel.length] as Set<TaskSubscription>;
      for (const stream of slot) {
        stream.wheelSlot = this.beingLookedAt;
        lookedAt.push(stream);
      }
      slot.clear();
    }
    this.swept = current;
    for (const stream of lookedAt) {
      // A stream behind is not written to; the backlog check above decides about it.
      if (!stream.behind && stream.lastWriteAt <= now - this.quietMs) stream.keepAlive();
      // Unless the keep-alive dropped it (its end took it off).
      if (stream.wheelSlot === this.beingLookedAt) this.schedule(stream, now);
    }
    this.lookingAt = [];
  }

  private move(stream: TaskSubscription, now: number): void {
    this.wheel[stream.wheelSlot]?.delete(stream);
    this.schedule(stream, now);
  }

  /**
   * Puts the stream in the slot of the tick before the one its keep-alive falls due at (a stream behind:
   * a whole interval on), within the ticks the wheel holds: after `swept`, fewer than a turn ahead.
   */
  private schedule(stream: TaskSubscription, now: number): void {
    const dueAt = (stream.behind ? now : stream.lastWriteAt) + this.quietMs;
    const dueTick = Math.ceil((dueAt - this.origin) / this.tickMs) - 1;
    const tick = Math.min(Math.max(dueTick, this.swept + 1), this.swept + this.wheel.length - 1);
    stream.wheelSlot = tick % this.wheel.length;
    (this.wheel[stream.wheelSlot] as Set<TaskSubscription>).add(stream);
  }
}
