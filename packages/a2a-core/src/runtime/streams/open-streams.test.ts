import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SseSink } from "../../ports/handler-response.js";
import { KEEP_ALIVE_COMMENT } from "../hub/live-event.js";
import { OpenStreams } from "./open-streams.js";
import { TaskSubscription } from "./task-subscription.js";

/** A client whose unread bytes the test sets, recording what was written to it and when. */
class FakeClient implements SseSink {
  backlog = 0;
  readonly writes: number[] = [];
  aborted = false;
  write(chunk: string): void {
    if (chunk === KEEP_ALIVE_COMMENT) this.writes.push(Date.now());
  }
  end(): void {}
  abort(): void {
    this.aborted = true;
  }
}

const KEEP_ALIVE_MS = 15_000;
const render = { eventJson: () => "{}", taskJson: () => "{}", messageJson: () => "{}" };

function open(streams: OpenStreams, client: FakeClient): TaskSubscription {
  const subscription = new TaskSubscription(
    "t",
    "1",
    client,
    { maxBytes: 1024, hardMaxBytes: 8192 },
    1,
    streams.now(),
    (ended) => streams.delete(ended),
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
      stream.keepAlive(streams.now());
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
