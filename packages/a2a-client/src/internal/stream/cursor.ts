import { seqOf } from "../../stream/events.js";

/**
 * Remembers the newest event sequence number the caller has seen, so that replays after a reattach (the
 * `task` snapshot, which always carries id 1, and anything at or before `Last-Event-ID`) are not
 * delivered twice. Events without a numeric id cannot be placed and are always delivered.
 */
export class EventCursor {
  #lastSeq: number;

  constructor(lastSeq = 0) {
    this.#lastSeq = lastSeq;
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** True when the event is new to the caller; the cursor then moves to it. */
  admit(eventId: string | undefined): boolean {
    const seq = seqOf(eventId);
    if (seq === undefined) return true;
    if (seq <= this.#lastSeq) return false;
    this.#lastSeq = seq;
    return true;
  }
}
