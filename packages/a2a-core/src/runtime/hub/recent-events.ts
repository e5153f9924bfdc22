import type { LiveEvent } from "./live-event.js";

export interface RecentEventBounds {
  /** Events kept at most. */
  maxEvents: number;
  /** Their `result`s' JSON, in characters, at most (whichever text each event has made). */
  maxChars: number;
}

/** What an owned task keeps in memory for streams that join late: a small window, enough for a reattach. */
export const RECENT_EVENTS: RecentEventBounds = { maxEvents: 64, maxChars: 64 * 1024 };

/**
 * The newest events of a task this process runs, contiguous up to the last one published: a stream
 * whose cursor is inside the window replays from memory; one further behind reads the log first (see
 * `catchUpFromLog`). Bounded by count and by the length of the JSON each event already carries, so a
 * running task holds no more than the window however long it runs.
 */
export class RecentEvents {
  private readonly events: LiveEvent[] = [];
  /** What each event in the window was counted as (its JSON may be made in another dialect later). */
  private readonly sizes: number[] = [];
  private chars = 0;
  /** The sequence number after which every event is in the window. */
  private after: number;

  constructor(
    lastSeq: number,
    private readonly bounds: RecentEventBounds = RECENT_EVENTS,
  ) {
    this.after = lastSeq;
  }

  push(event: LiveEvent): void {
    const size = event.jsonLength;
    this.events.push(event);
    this.sizes.push(size);
    this.chars += size;
    while (
      this.events.length > this.bounds.maxEvents ||
      (this.chars > this.bounds.maxChars && this.events.length > 0)
    ) {
      const dropped = this.events.shift() as LiveEvent;
      this.chars -= this.sizes.shift() as number;
      this.after = dropped.seq;
    }
  }

  /** Whether a stream positioned after `cursor` finds everything it lacks here. */
  covers(cursor: number): boolean {
    return cursor >= this.after;
  }

  /** The window's events after `cursor`, in order. */
  *since(cursor: number): Iterable<LiveEvent> {
    for (const event of this.events) if (event.seq > cursor) yield event;
  }

  clear(lastSeq: number): void {
    this.events.length = 0;
    this.sizes.length = 0;
    this.chars = 0;
    this.after = lastSeq;
  }
}
