import { describe, expect, it } from "vitest";
import { CallerSlots } from "./caller-slots.js";

describe("CallerSlots", () => {
  it("gives each caller its own slots, refuses one more, and takes each slot back once", () => {
    const slots = new CallerSlots(2);
    const first = slots.take("a");
    const second = slots.take("a");
    expect(slots.take("a")).toBeUndefined();
    expect(slots.take("b")).toBeDefined();
    first?.();
    first?.(); // a second release gives back nothing more
    expect(slots.heldBy("a")).toBe(1);
    expect(slots.take("a")).toBeDefined();
    expect(slots.take("a")).toBeUndefined();
    second?.();
    expect(slots.heldBy("a")).toBe(1);
  });

  it("bounds nobody when it has no cap", () => {
    const slots = new CallerSlots(undefined);
    for (let i = 0; i < 1_000; i++) expect(slots.take("a")).toBeDefined();
  });
});
