import { describe, expect, it } from "vitest";
import { PerCallerSlots } from "./per-caller-slots.js";

describe("PerCallerSlots", () => {
  it("gives each caller its own slots, refuses one more, and takes each slot back once", () => {
    const slots = new PerCallerSlots(2);
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
    const slots = new PerCallerSlots(undefined);
    for (let i = 0; i < 1_000; i++) expect(slots.take("a")).toBeDefined();
  });
});
