import type { SseSink } from "../../ports/handler-response.js";
import type { EndedStream, StreamEndReason } from "../../ports/stream-end.js";
import type { StreamRenderer } from "../../protocol/dialect/dialect.js";
import type { Task } from "../../protocol/schemas/a2a.js";
import { KEEP_ALIVE_COMMENT, type LiveEvent, liveFrame } from "../hub/live-event.js";

/** How far behind a client may fall; one object shared by every stream of a handler. */
export interface BacklogBounds {
  /** Unread bytes a client may keep for a third of the keep-alive interval (bursts and replays drain meanwhile). */
  maxBytes: number;
  /** Unread bytes at which a client is dropped at once. */
  hardMaxBytes: number;
}

/**
 * The keep-alive tick as a stream sees it (OpenStreams): the clock its writes are stamped with, and where
 * it reports falling behind.
 */
export interface StreamTicker {
  /** The tick's clock (ms): each write is stamped with it. */
  now(): number;
  /** The stream went over its backlog bound: the tick looks at it until it catches up or is dropped. */
  noteBehind(stream: TaskSubscription): void;
}

/** For a subscription no client reads (it never falls behind, and needs no keep-alive). */
export const OFF_THE_TICK: StreamTicker = { now: () => 0, noteBehind() {} };

/**
 * One open stream: a sink, the task it follows, and a cursor (the last sequence number it sent). It
 * holds no timer, signal, promise or generator; feeds push events into it and one process-wide tick
 * writes its keep-alives.
 */
export class TaskSubscription implements EndedStream {
  /** Sequence number of the newest event written to this stream. */
  cursor: number;
  /** When this stream last wrote anything (ms, the keep-alive tick's clock). */
  lastWriteAt: number;
  /** The client's backlog went over `maxBytes`; the tick drops it if it stays over (see checkBacklog). */
  behind = false;
  /** When the tick first found the client still over `maxBytes`. */
  private behindSince: number | undefined;
  /** The slot of the keep-alive tick's wheel that holds this stream; -1 while it is not on the tick. */
  wheelSlot = -1;
  private ended = false;
  /** How the stream ended, once it has. */
  endReason: StreamEndReason | undefined;

  constructor(
    readonly taskId: string,
    /** The request's JSON-RPC id, already serialised. */
    private readonly requestIdJson: string,
    private readonly sink: SseSink,
    private readonly bounds: BacklogBounds,
    cursor: number,
    private readonly ticker: StreamTicker,
    /** Called once when the stream ends, whichever way. */
    private readonly onEnd: (subscription: TaskSubscription) => void,
    /** Writes each frame's `result` in the dialect the stream's request asked for. */
    private readonly render: StreamRenderer,
  ) {
    this.cursor = cursor;
    this.lastWriteAt = ticker.now();
  }

  get isEnded(): boolean {
    return this.ended;
  }

  /** Writes the `task` frame (seq 1, the snapshot the stream starts from). */
  sendSnapshot(task: Task): void {
    this.write(liveFrame(this.requestIdJson, { seq: 1, event: "task", resultJson: this.render.taskJson(task) }));
  }

  /**
   * Writes an event the stream has not sent yet, in order. `terminal` is the task after `finished`: the
   * `final` frame follows it and the stream ends.
   */
  deliver(event: LiveEvent, terminal?: () => Task | undefined): void {
    if (this.ended || event.seq <= this.cursor) return;
    this.cursor = event.seq;
    const frame = { seq: event.seq, event: event.event, resultJson: this.render.eventJson(event) };
    if (!this.write(liveFrame(this.requestIdJson, frame))) return;
    if (event.event !== "finished") return;
    const task = terminal?.();
    // `final` is not in the log; its id follows `finished` so ids keep increasing on every stream.
    if (task)
      this.write(
        liveFrame(this.requestIdJson, { seq: event.seq + 1, event: "final", resultJson: this.render.taskJson(task) }),
      );
    this.end("final");
  }

  keepAlive(): void {
    this.write(KEEP_ALIVE_COMMENT);
  }

  /** Whether the client has more unread than it may keep (read live from the sink). */
  get overBacklog(): boolean {
    return !this.ended && this.sink.backlog > this.bounds.maxBytes;
  }

  /** The keep-alive tick's look at a client that fell behind: caught up, still within `graceMs`, or dropped. */
  checkBacklog(now: number, graceMs: number): void {
    if (this.sink.backlog <= this.bounds.maxBytes) {
      this.behind = false;
      this.behindSince = undefined;
      return;
    }
    this.behindSince ??= now;
    if (now - this.behindSince >= graceMs) this.drop();
  }

  /** Ends the response cleanly (the task is over, or the server is shutting down: clients reattach). */
  end(reason: StreamEndReason = "closed"): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = reason;
    this.sink.end();
    this.onEnd(this);
  }

  /** The client went away: nothing more to write. */
  detach(): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = "client_gone";
    this.onEnd(this);
  }

  private write(chunk: string): boolean {
    if (this.ended) return false;
    this.sink.write(chunk);
    this.lastWriteAt = this.ticker.now();
    const backlog = this.sink.backlog;
    if (backlog <= this.bounds.maxBytes) return true;
    // Behind: a burst (a replay) may drain within the grace; a client that reads nothing will not.
    if (backlog <= this.bounds.hardMaxBytes) {
      if (!this.behind) {
        this.behind = true;
        this.ticker.noteBehind(this);
      }
      return true;
    }
    this.drop();
    return false;
  }

  /** Drops a client too far behind rather than buffer for it without end; it reattaches and loses nothing. */
  private drop(): void {
    if (this.ended) return;
    this.ended = true;
    this.endReason = "too_slow";
    this.sink.abort();
    this.onEnd(this);
  }
}
