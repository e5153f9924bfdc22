import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SseSink } from "../../ports/handler-response.js";
import { KEEP_ALIVE_COMMENT, LiveEvent } from "../hub/live-event.js";
import { OpenStreams } from "./open-streams.js";
import { TaskSubscription } from "./task-subscription.js";

/** A client whose unread bytes the test sets, recording what was written to it and when. */
class FakeClient implements SseSink {
  backlog = 0;
  readonly writes: number[] = [];
  aborted = false;
  constructor(private readonly clock: () => number = () => Date.now()) {}
  write(chunk: string): void {
    if (chunk === KEEP_ALIVE_COMMENT) this.writes.push(this.clock());
  }
  end(): void {}
  abort(): void {
    this.aborted = true;
  }
}

const KEEP_ALIVE_MS = 15_000;
const render = { eventJson: () => "{}", taskJson: () => "{}", messageJson: () => "{}" };

/** The client's first keep-alive came 14-15 s (a tick before the interval, at most the interval) after `since`. */
function expectFirstKeepAliveWithinInterval(client: FakeClient, since: number, intervalMs = KEEP_ALIVE_MS): void {
  const gap = (client.writes[0] as number) - since;
  expect(gap).toBeGreaterThanOrEqual(intervalMs - 1_000);
  expect(gap).toBeLessThanOrEqual(intervalMs);
}

function open(
  streams: OpenStreams,
  client: FakeClient,
  onEnd = (ended: TaskSubscription) => streams.delete(ended),
): TaskSubscription {
  const subscription = new TaskSubscription(
    "t",
    "1",
    client,
    { maxBytes: 1024, hardMaxBytes: 8192 },
    1,
    streams,
    onEnd,
    render,
  );
  streams.add(subscription);
  return subscription;
}

describe("OpenStreams", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes a keep-alive to an idle stream every 14-15 s, never later", () => {
    const streams = new OpenStreams(KEEP_ALIVE_MS, () => Date.now());
    const client = new FakeClient();
    const opened = Date.now();
    open(streams, client);
    vi.advanceTimersByTime(60_000);
    const gaps = client.writes.map((at, i) => at - (i === 0 ? opened : (client.writes[i - 1] as number)));
    expect(gaps.length).toBe(4);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(14_000);
      expect(gap).toBeLessThanOrEqual(KEEP_ALIVE_MS);
    }
    streams.endAll();
  });

  it("writes no keep-alive to a stream busy with events, and one within the interval once it goes quiet", () => {
    const streams = new OpenStreams(KEEP_ALIVE_MS, () => Date.now());
    const busy = new FakeClient();
    const stream = open(streams, busy);
    // An event every 5 s for a minute: the gaps never reach the interval, so no keep-alive.
    for (let at = 5_000; at <= 60_000; at += 5_000) {
      vi.advanceTimersByTime(5_000);
      // The renderer writes "{}" whatever the result; the event's content is not what is tested.
      stream.deliver(new LiveEvent(at / 5_000 + 1, "update", {} as never));
    }
    expect(busy.writes).toEqual([]);
    const lastEvent = Date.now();
    vi.advanceTimersByTime(20_000);
    expect(busy.writes.length).toBe(1);
    expectFirstKeepAliveWithinInterval(busy, lastEvent);
    streams.endAll();
  });

  it("keeps thousands of streams each within the interval, and stops ticking once the last one ends", () => {
    const streams = new OpenStreams(KEEP_ALIVE_MS, () => Date.now());
    const clients: FakeClient[] = [];
    const opened: TaskSubscription[] = [];
    // Opened over 20 s, so their keep-alives fall due in every slot of the tick.
    for (let i = 0; i < 2_000; i++) {
      if (i % 100 === 0) vi.advanceTimersByTime(1_000);
      const client = new FakeClient();
      clients.push(client);
      opened.push(open(streams, client));
    }
    for (const stream of opened.slice(0, 1_000)) stream.detach();
    const from = Date.now();
    vi.advanceTimersByTime(45_000);
    expect(clients.slice(0, 1_000).every((client) => client.writes.every((at) => at <= from))).toBe(true);
    for (const client of clients.slice(1_000)) {
      const gaps = client.writes.filter((at) => at >= from).map((at, i, own) => at - (own[i - 1] ?? at));
      expect(gaps.length).toBeGreaterThanOrEqual(3);
      for (const gap of gaps.slice(1)) expect(gap).toBeLessThanOrEqual(KEEP_ALIVE_MS);
    }
    expect(vi.getTimerCount()).toBe(1);
    streams.endAll();
    // Nothing open: an idle process is not woken every second.
    expect(vi.getTimerCount()).toBe(0);
  });

  it("writes the keep-alive by its time after the loop stalled, not a tick count later", () => {
    const streams = new OpenStreams(KEEP_ALIVE_MS, () => Date.now());
    const client = new FakeClient();
    const opened = Date.now();
    open(streams, client);
    vi.advanceTimersByTime(1_000);
    // The loop is blocked for 6 s: the clock moves on, the timer fires late.
    vi.setSystemTime(Date.now() + 6_000);
    vi.advanceTimersByTime(20_000);
    expectFirstKeepAliveWithinInterval(client, opened);
    streams.endAll();
  });

  it("looks again at a stream the tick before found not yet due, though the next tick comes early", () => {
    let now = 0;
    const clock = () => now;
    const streams = new OpenStreams(KEEP_ALIVE_MS, clock);
    const client = new FakeClient(clock);
    const stream = open(streams, client);
    now = 500;
    stream.deliver(new LiveEvent(2, "update", {} as never)); // due a keep-alive from 14,500
    // The interval fires every second, as node's timers read the time: here a little late, then a little early.
    for (const at of [...Array.from({ length: 14 }, (_, i) => (i + 1) * 1_000 + 0.4), 14_999.7, 15_999.9]) {
      now = at;
      vi.advanceTimersByTime(1_000);
    }
    expect(client.writes).toEqual([14_999.7]);
    streams.endAll();
  });

  it("keeps a long interval's stream without a slot for every tick of it", () => {
    const streams = new OpenStreams(2 * 60 * 60_000, () => Date.now());
    const client = new FakeClient();
    const opened = Date.now();
    open(streams, client);
    vi.advanceTimersByTime(3 * 60 * 60_000);
    expectFirstKeepAliveWithinInterval(client, opened, 2 * 60 * 60_000);
    streams.endAll();
  });

  it("counts a client's keep-alive from its last write again once it catches up", () => {
    const streams = new OpenStreams(KEEP_ALIVE_MS, () => Date.now());
    const client = new FakeClient();
    const stream = open(streams, client);
    vi.advanceTimersByTime(10_000);
    client.backlog = 2048; // behind from its write at 10 s until it reads, at 15 s
    stream.deliver(new LiveEvent(2, "update", {} as never));
    const lastWrite = Date.now();
    vi.advanceTimersByTime(5_000);
    client.backlog = 0;
    vi.advanceTimersByTime(20_000);
    expect(stream.isEnded).toBe(false);
    expectFirstKeepAliveWithinInterval(client, lastWrite);
    streams.endAll();
  });

  it("stops its timer when the last stream goes, however it went", () => {
    const streams = new OpenStreams(KEEP_ALIVE_MS, () => Date.now());
    const first = open(streams, new FakeClient());
    const second = open(streams, new FakeClient());
    first.detach();
    expect(vi.getTimerCount()).toBe(1);
    second.end("final");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("refuses a keep-alive interval that is not a positive number of milliseconds", () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new OpenStreams(bad)).toThrow(/keepAliveMs must be a positive number/);
    }
  });

  it("ends every stream at shutdown, even one the tick under way is looking at", () => {
    const streams = new OpenStreams(KEEP_ALIVE_MS, () => Date.now());
    const dropped = new FakeClient();
    const waiting = new FakeClient();
    // The first stream's keep-alive finds its client past the hard bound and drops it; its end starts a
    // shutdown while the tick still holds the second stream, due in the same tick.
    const ends = (ended: TaskSubscription) => {
      streams.delete(ended);
      if (ended.endReason === "too_slow") streams.endAll();
    };
    const droppedStream = open(streams, dropped, ends);
    const waitingStream = open(streams, waiting, ends);
    dropped.backlog = 10_000;
    vi.advanceTimersByTime(KEEP_ALIVE_MS);
    expect(droppedStream.endReason).toBe("too_slow");
    expect(waitingStream.endReason).toBe("shutdown");
  });

  it("gives a client over its backlog bound a third of the interval to catch up, then drops it", () => {
    const streams = new OpenStreams(KEEP_ALIVE_MS, () => Date.now());
    const slow = new FakeClient();
    const catchingUp = new FakeClient();
    const slowStream = open(streams, slow);
    const catchingUpStream = open(streams, catchingUp);
    for (const [client, stream] of [
      [slow, slowStream],
      [catchingUp, catchingUpStream],
    ] as const) {
      client.backlog = 2048; // over maxBytes, under the hard bound: behind, not dropped yet
      stream.keepAlive();
      expect(stream.behind).toBe(true);
    }
    vi.advanceTimersByTime(4_000);
    expect(slow.aborted).toBe(false);
    catchingUp.backlog = 0;
    vi.advanceTimersByTime(3_000);
    expect(slow.aborted).toBe(true);
    expect(slowStream.endReason).toBe("too_slow");
    expect(catchingUp.aborted).toBe(false);
    expect(catchingUpStream.behind).toBe(false);
    streams.endAll();
  });
});
