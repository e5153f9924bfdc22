import { describe, expect, it } from "vitest";
import type { TaskEventResult } from "../../protocol/schemas/a2a.js";
import { LiveEvent } from "./live-event.js";
import { RecentEvents } from "./recent-events.js";

const working = (text: string): TaskEventResult => ({
  statusUpdate: {
    taskId: "t",
    contextId: "c",
    status: {
      state: "TASK_STATE_WORKING",
      timestamp: "2026-12-06T00:00:00Z",
      message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text }] },
    },
  },
});

/** An event whose v0.3 JSON (as a store that logs v0.3 makes it) is `chars` long. */
const event = (seq: number, chars = 10) => {
  const live = new LiveEvent(seq, "update", working("step"));
  live.v03Json = "x".repeat(chars);
  return live;
};

describe("RecentEvents", () => {
  it("keeps the newest events within its count, and says which cursors it covers", () => {
    const window = new RecentEvents(1, { maxEvents: 3, maxChars: 1_000 });
    expect(window.covers(1)).toBe(true);
    for (let seq = 2; seq <= 10; seq++) window.push(event(seq));
    expect([...window.since(0)].map((e) => e.seq)).toEqual([8, 9, 10]);
    expect(window.covers(7)).toBe(true);
    expect(window.covers(6)).toBe(false);
  });

  it("keeps the newest events within its characters, none when one alone is over", () => {
    const window = new RecentEvents(1, { maxEvents: 100, maxChars: 25 });
    for (let seq = 2; seq <= 5; seq++) window.push(event(seq));
    expect([...window.since(0)].map((e) => e.seq)).toEqual([4, 5]);
    window.push(event(6, 30));
    expect([...window.since(0)]).toEqual([]);
    expect(window.covers(6)).toBe(true);
    expect(window.covers(5)).toBe(false);
  });

  it("counts an event with no JSON yet by its model JSON", () => {
    const result = working("a".repeat(100));
    const window = new RecentEvents(1, { maxEvents: 100, maxChars: JSON.stringify(result).length - 1 });
    window.push(new LiveEvent(2, "update", result));
    expect([...window.since(0)]).toEqual([]);
    expect(window.covers(2)).toBe(true);
  });

  it("drops an event by what it was counted as, though a stream made a longer JSON of it since", () => {
    const window = new RecentEvents(1, { maxEvents: 100, maxChars: 25 });
    const first = event(2, 10);
    window.push(first);
    // A v1.0 stream writes the model JSON of the same event: longer than the v0.3 text it was counted by.
    expect(first.resultJson.length).toBeGreaterThan(100);
    window.push(event(3));
    window.push(event(4));
    expect([...window.since(0)].map((e) => e.seq)).toEqual([3, 4]);
    window.push(event(5));
    expect([...window.since(0)].map((e) => e.seq)).toEqual([4, 5]);
  });
});
