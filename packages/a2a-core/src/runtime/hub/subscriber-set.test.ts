import { describe, expect, it } from "vitest";
import { SubscriberSet } from "./subscriber-set.js";

describe("SubscriberSet", () => {
  it("behaves as a set through one, many, and back to none", () => {
    const set = new SubscriberSet<string>();
    expect(set.size).toBe(0);
    expect(set.toArray()).toEqual([]);
    set.add("a");
    set.add("a");
    expect(set.size).toBe(1);
    expect(set.some((m) => m === "a")).toBe(true);
    set.add("b");
    set.add("c");
    expect(set.toArray()).toEqual(["a", "b", "c"]);
    expect(set.delete("b")).toBe(true);
    expect(set.delete("b")).toBe(false);
    expect(set.toArray()).toEqual(["a", "c"]);
    expect(set.some((m) => m === "b")).toBe(false);
    set.delete("a");
    set.delete("c");
    expect(set.size).toBe(0);
    set.add("d");
    expect(set.toArray()).toEqual(["d"]);
    set.clear();
    expect(set.size).toBe(0);
    expect(set.delete("d")).toBe(false);
  });

  it("gives a copy that stays whole while members leave during a pass", () => {
    const set = new SubscriberSet<number>();
    for (const n of [1, 2, 3]) set.add(n);
    const seen: number[] = [];
    for (const n of set.toArray()) {
      seen.push(n);
      set.delete(n === 1 ? 2 : n);
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(set.toArray()).toEqual([1]);
  });
});
