import { describe, expect, it } from "vitest";
import { RecentEvents } from "./recent-events.js";

const event = (seq: number, chars = 10) => ({ seq, event: "update" as const, resultJson: "x".repeat(chars) });

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
});
